// What importing wardrik costs (placeholder; the measurement lands in the next commit).
export async function main(): Promise<void> {
  console.log('import-cost: not yet measured');
}
