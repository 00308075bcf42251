// Runs every benchmark, or those whose name contains the filter given.
// Run: npm run bench [-- filter]   (or: node --conditions=@wardrik/source --import tsx bench/run.ts [filter])

/** Each benchmark module exports `main()`. */
const benches: Record<string, () => Promise<{ main: () => Promise<unknown> }>> = {
  'core-call': () => import('./core-call.ts'),
  runs: () => import('./runs.ts'),
  http: () => import('./http.ts'),
  mcp: () => import('./mcp.ts'),
  workers: () => import('./workers.ts'),
  postgres: () => import('./postgres.ts'),
  sessions: () => import('./sessions.ts'),
  memory: () => import('./memory.ts'),
  agents: () => import('./agents.ts'),
  console: () => import('./console.ts'),
  peers: () => import('./peers.ts'),
  telemetry: () => import('./telemetry.ts'),
  responsiveness: () => import('./responsiveness.ts'),
  retention: () => import('./retention.ts'),
  'external-work': () => import('./external-work.ts'),
  agentdojo: () => import('./agentdojo.ts'),
  'import-cost': () => import('./import-cost.ts'),
};

const filter = process.argv[2];
const selected = Object.keys(benches).filter((name) => !filter || name.includes(filter));
if (selected.length === 0) {
  console.error(`no benchmark matches ${JSON.stringify(filter)}; there are: ${Object.keys(benches).join(', ')}`);
  process.exit(1);
}
for (const name of selected) {
  const bench = await benches[name]?.();
  await bench?.main();
}
