/**
 * `clients` concurrent callers, each calling `startOne` `count` times one after another; returns
 * how long each call took, in ms.
 */
export async function concurrentRuns(clients: number, count: number, startOne: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let index = 0; index < count; index++) {
        const began = performance.now();
        await startOne();
        latencies.push(performance.now() - began);
      }
    }),
  );
  return latencies;
}
