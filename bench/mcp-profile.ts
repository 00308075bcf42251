// Where an MCP call's time goes (issue 27's benchmark): one kind of call only, made one at a time,
// with wall and CPU time per call, and the time spent inside the runtime methods /mcp calls
// (wrapped on the instance, outside the runtime's code). With `MCP_CPU_PROFILE=FILE`, a CPU profile
// of the measured calls alone (not the setup or warm-up) is written to FILE (.cpuprofile):
//   MCP_CPU_PROFILE=/tmp/a.cpuprofile node --conditions=@wardrik/source --import tsx bench/mcp-profile.ts KIND [CALLS]
// KIND: mcp-agent | http-agent | mcp-gateway | sdk-gateway | sdk-gateway-start
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';
import { type McpBench, setUp } from './mcp.js';
import { median, percentile } from './stats.js';

const KINDS = ['mcp-agent', 'http-agent', 'mcp-gateway', 'sdk-gateway', 'sdk-gateway-start'] as const;
type Kind = (typeof KINDS)[number];
const SIDES: Record<Kind, keyof McpBench> = {
  'mcp-agent': 'agentOverMcp',
  'http-agent': 'agentOverHttp',
  'mcp-gateway': 'gatewayOverMcp',
  'sdk-gateway': 'sdkRun',
  'sdk-gateway-start': 'sdkStartWait',
};
/** The runtime's methods /mcp (and the HTTP API) call, timed on the instance. */
const WRAPPED = ['start', 'run', 'wait', 'getRun', 'getRunSummary', 'listParks', 'agents'] as const;

/** Wraps the instance's methods: how often each was called and the time until its promise settled. */
function timeMethods(target: object, names: readonly string[], into: Map<string, number[]>): void {
  const record = target as Record<string, unknown>;
  for (const name of names) {
    const original = record[name];
    if (typeof original !== 'function') continue;
    const times: number[] = [];
    into.set(name, times);
    record[name] = function (this: unknown, ...args: unknown[]) {
      const began = performance.now();
      const result = original.apply(this, args);
      if (result instanceof Promise) {
        return result.finally(() => times.push(performance.now() - began));
      }
      times.push(performance.now() - began);
      return result;
    };
  }
}

export async function main(kind: Kind, calls: number): Promise<void> {
  const bench = await setUp();
  const side = bench[SIDES[kind]] as () => Promise<void>;
  for (let index = 0; index < 300; index++) await side();
  const methods = new Map<string, number[]>();
  timeMethods(bench.wardrik, WRAPPED, methods);
  timeMethods(bench.auth, ['authenticate'], methods);
  const storeReads = Object.getOwnPropertyNames(Object.getPrototypeOf(bench.store)).filter((name) =>
    /^(get|load|list|read)/.test(name),
  );
  timeMethods(
    bench.store,
    storeReads.map((name) => name),
    methods,
  );
  const wall: number[] = [];
  const cpu: number[] = [];
  const before = bench.store.stats();
  const profileTo = process.env.MCP_CPU_PROFILE;
  const inspector = profileTo ? new Session() : undefined;
  if (inspector) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
    await inspector.post('Profiler.start');
  }
  for (let index = 0; index < calls; index++) {
    const usage = process.cpuUsage();
    const began = performance.now();
    await side();
    wall.push(performance.now() - began);
    const used = process.cpuUsage(usage);
    cpu.push((used.user + used.system) / 1000);
  }
  if (inspector && profileTo) {
    const { profile } = await inspector.post('Profiler.stop');
    writeFileSync(profileTo, JSON.stringify(profile));
    inspector.disconnect();
  }
  const after = bench.store.stats();
  await bench.close();
  const ms = (values: number[]) => `${median(values).toFixed(3)} ms (p90 ${percentile(values, 90).toFixed(3)})`;
  console.log(`${kind}: ${calls} calls one at a time after 300 warm-up calls`);
  console.log(`  wall a call: ${ms(wall)}; CPU a call (every thread): ${ms(cpu)}`);
  const per = (key: 'flushes' | 'syncs' | 'recordsWritten') => ((after[key] - before[key]) / calls).toFixed(2);
  console.log(`  store: ${per('flushes')} commits, ${per('syncs')} fsyncs, ${per('recordsWritten')} records a call`);
  for (const [name, times] of methods) {
    if (times.length === 0) continue;
    console.log(`  ${name}: ${(times.length / calls).toFixed(2)} a call, each ${ms(times)}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const kind = process.argv[2] as Kind;
  if (!KINDS.includes(kind)) throw new Error(`kind: one of ${KINDS.join(', ')}`);
  await main(kind, Number(process.argv[3] ?? 1000));
}
