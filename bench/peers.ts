// Peers (issue 18): one workload — one agent, one in-process `add` tool, a zero-latency scripted
// model, one call per model step, a final text at the end (bench/peers/workload.ts) — run through
// each framework's own API, each in a process of its own (bench/peers/*.ts), next to floors
// measured in the same run. Run with `npm run bench -- peers`.
//   PEERS_ROUNDS=N   rounds (default 3): every subject runs once per round, figures are medians
//   PEERS_ONLY=a,b   only the subjects whose key contains one of these (e.g. wardrik,loop)
// The peers are devDependencies of bench/peers/package.json alone (not a workspace): installed on
// demand with `npm ci --prefix bench/peers`, never by the repo's own `npm ci`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Figures } from './peers/harness.js';
import { WORKLOAD } from './peers/workload.js';
import { median, table } from './stats.js';

const peersFolder = fileURLToPath(new URL('./peers/', import.meta.url));
const repoFolder = fileURLToPath(new URL('../', import.meta.url));

interface SubjectSpec {
  key: string;
  label: string;
  /** The child script in bench/peers/ and its arguments. */
  script: string;
  args: string[];
  /** The packages whose versions the tables name. */
  packages: string[];
}

const subjects: SubjectSpec[] = [
  { key: 'loop', label: 'floor: plain loop', script: 'floors.ts', args: ['loop'], packages: [] },
  {
    key: 'sqlite-normal',
    label: 'floor: loop + 2 inserts, NORMAL',
    script: 'floors.ts',
    args: ['sqlite-normal'],
    packages: ['better-sqlite3'],
  },
  {
    key: 'sqlite-full',
    label: 'floor: loop + 2 inserts, FULL',
    script: 'floors.ts',
    args: ['sqlite-full'],
    packages: ['better-sqlite3'],
  },
  { key: 'wardrik-memory', label: 'Wardrik, in-memory store', script: 'wardrik.ts', args: ['memory'], packages: [] },
  {
    key: 'wardrik-read-only',
    label: 'Wardrik, SQLite FULL, read-only tool',
    script: 'wardrik.ts',
    args: ['read-only'],
    packages: [],
  },
  {
    key: 'wardrik-unannotated',
    label: 'Wardrik, SQLite FULL, unannotated tool',
    script: 'wardrik.ts',
    args: ['unannotated'],
    packages: [],
  },
  { key: 'ai-sdk', label: 'AI SDK 6 (in memory)', script: 'ai-sdk.ts', args: [], packages: ['ai'] },
  {
    key: 'openai-agents',
    label: 'OpenAI Agents JS (in memory)',
    script: 'openai-agents.ts',
    args: [],
    packages: ['@openai/agents'],
  },
  {
    key: 'langgraph',
    label: 'LangGraph.js, SqliteSaver as shipped',
    script: 'langgraph.ts',
    args: ['normal'],
    packages: ['@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite', '@langchain/core'],
  },
  {
    key: 'langgraph-full',
    label: 'LangGraph.js, SqliteSaver, FULL',
    script: 'langgraph.ts',
    args: ['full'],
    packages: ['@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite', '@langchain/core'],
  },
];

/** The subjects ratios are taken against. */
const LOOP = 'loop';
const WARDRIK = 'wardrik-read-only';

/** Installs bench/peers/node_modules from its lock file when it is missing or older than the lock. */
function ensurePeersInstalled(): void {
  const installed = join(peersFolder, 'node_modules', '.package-lock.json');
  const lock = join(peersFolder, 'package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log('\nInstalling the peers from bench/peers/package-lock.json: npm ci --prefix bench/peers');
  const result = spawnSync('npm', ['ci', '--prefix', peersFolder, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(
      'could not install the peers; run `npm ci --prefix bench/peers` (it needs the npm registry, and builds better-sqlite3)',
    );
  }
}

function version(name: string): string {
  const manifest = name.startsWith('wardrik')
    ? join(repoFolder, 'packages', 'wardrik', 'package.json')
    : join(peersFolder, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Runs one subject in a child process of its own; its figures, or the reason it failed. */
function measureInChild(subject: SubjectSpec): Promise<Figures | Error> {
  const tsx = import.meta.resolve('tsx');
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      // Wardrik from its build, as the peers run from theirs (`npm run bench` builds first): run
      // from source, tsx's keep-names helper alone costs it ~10 % of a step.
      '--import',
      tsx,
      join(peersFolder, subject.script),
      ...subject.args,
    ],
    {
      cwd: repoFolder,
      stdio: ['ignore', 'pipe', 'inherit'],
      // No tracing leaves the machine, whatever the environment says.
      env: {
        ...process.env,
        OPENAI_AGENTS_DISABLE_TRACING: '1',
        LANGSMITH_TRACING: 'false',
        LANGCHAIN_TRACING_V2: 'false',
      },
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const limit = setTimeout(() => child.kill('SIGKILL'), 20 * 60_000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const line = output.split('\n').find((each) => each.startsWith('RESULT '));
      resolve(
        line && code === 0
          ? (JSON.parse(line.slice('RESULT '.length)) as Figures)
          : new Error(`${subject.key} exited with ${signal ?? code}: ${output.trim().slice(-500)}`),
      );
    });
  });
}

function ratio(value: number | undefined, reference: number | undefined): number | undefined {
  return value === undefined || reference === undefined ? undefined : value / reference;
}

function medianOf(values: Array<number | undefined>): number | undefined {
  const present = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  return present.length ? median(present) : undefined;
}

function times(value: number | undefined, digits = 2): string {
  if (value === undefined) return '—';
  return `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : digits)}×`;
}

function microseconds(value: number | undefined): string {
  if (value === undefined) return '—';
  return `${value.toFixed(value < 10 ? 2 : 0)} µs`;
}

function whole(value: number | undefined): string {
  return value === undefined ? '—' : Math.round(value).toLocaleString('en');
}

export async function main(): Promise<void> {
  ensurePeersInstalled();
  const rounds = Number(process.env.PEERS_ROUNDS ?? 3);
  const only = process.env.PEERS_ONLY?.split(',').filter(Boolean);
  const selected = subjects.filter((subject) => !only || only.some((part) => subject.key.includes(part)));
  console.log(
    `\n## Peers (Node ${process.version}, ${cpus().length} cores, ${rounds} rounds, each subject in a process of its own)`,
  );
  const peerPackages = [...new Set(subjects.flatMap((subject) => subject.packages))];
  console.log(
    `Versions: wardrik ${version('wardrik')} (this tree), ${peerPackages.map((name) => `${name} ${version(name)}`).join(', ')}`,
  );
  console.log(
    `Workload: ${WORKLOAD.shortCalls}-call runs (${WORKLOAD.warmRuns} warm-ups, ${WORKLOAD.shortRuns} timed), one run of ` +
      `${WORKLOAD.longCalls.toLocaleString('en')} calls, ${WORKLOAD.concurrentRuns} concurrent runs of ${WORKLOAD.concurrentCalls} calls`,
  );

  const results = new Map<string, Figures[]>(selected.map((subject) => [subject.key, []]));
  for (let round = 0; round < rounds; round++) {
    // Each round starts one subject later, so that no subject always runs first or last.
    const order = selected.map((_, index) => selected[(index + round) % selected.length] as SubjectSpec);
    for (const subject of order) {
      const began = performance.now();
      const figures = await measureInChild(subject);
      const seconds = ((performance.now() - began) / 1000).toFixed(1);
      if (figures instanceof Error) {
        console.error(`round ${round + 1}: ${figures.message}`);
        continue;
      }
      results.get(subject.key)?.push(figures);
      console.log(
        `round ${round + 1}/${rounds} ${subject.key}: ${microseconds(figures.stepUsP50)}/step, ` +
          `${whole(figures.concurrentStepsPerSecond)} steps/s (${seconds} s)`,
      );
    }
  }

  // Ratios are taken round by round (subjects measured minutes apart, not hours), then the median.
  const inRound = (key: string, round: number) => results.get(key)?.[round];
  const rows = selected.flatMap((subject) => {
    const runs = results.get(subject.key) ?? [];
    if (runs.length === 0) return [];
    const each = (pick: (figures: Figures) => number) => runs.map(pick);
    const rangeOf = (values: number[]) =>
      values.length > 1 ? ` (${microseconds(Math.min(...values))}–${microseconds(Math.max(...values))})` : '';
    const perRound = (pick: (figures: Figures) => number, reference: string) =>
      medianOf(
        runs.map((figures, round) => {
          const other = inRound(reference, round);
          return other ? ratio(pick(figures), pick(other)) : undefined;
        }),
      );
    const step = (figures: Figures) => figures.stepUsP50;
    const throughput = (figures: Figures) => figures.concurrentStepsPerSecond;
    return [
      {
        subject: subject.label,
        durability: runs[0]?.notes ?? '',
        'µs/step, 10-call runs': `${microseconds(medianOf(each(step)))}${rangeOf(each(step))}`,
        '÷ loop': times(perRound(step, LOOP)),
        '÷ Wardrik': times(perRound(step, WARDRIK)),
        'step 1,000 ÷ step 10': times(medianOf(each((figures) => figures.lateStepUs / figures.earlyStepUs))),
        'steps/s, 64 × 100': whole(medianOf(each(throughput))),
        'steps/s ÷ Wardrik': times(perRound(throughput, WARDRIK)),
        'RSS after long run': `${whole(medianOf(each((figures) => figures.rssAfterLongMb)))} MB`,
        'long run': `${medianOf(each((figures) => figures.longRunSeconds))?.toFixed(1)} s`,
      },
    ];
  });
  table(
    `Peers: medians of ${rounds} rounds; ratios per round, then their median ("÷ Wardrik": SQLite FULL, read-only tool)`,
    rows,
  );
  const header = Object.keys(rows[0] ?? {});
  console.log(
    [
      `| ${header.join(' | ')} |`,
      `| ${header.map((_, index) => (index < 2 ? '---' : '--:')).join(' | ')} |`,
      ...rows.map((row) => `| ${Object.values(row).join(' | ')} |`),
    ].join('\n'),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
