// Node processes of the PostgreSQL benchmarks (bench/postgres.ts): each one is bench/postgres-node.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const nodeScript = fileURLToPath(new URL('./postgres-node.ts', import.meta.url));

/** What a node process says about itself (the `stats` command). */
export interface NodeStats {
  readonly statements: Record<string, { count: number; ms: number }>;
  readonly cpuSeconds: number;
  readonly store: { flushes: number; recordsWritten: number; writesRefused: number };
  readonly activeRuns: number;
  readonly rssMb: number;
}

/** Statements counted in a node's stats, all names together. */
export function statementCount(stats: NodeStats): number {
  return Object.values(stats.statements).reduce((sum, entry) => sum + entry.count, 0);
}

/** A Wardrik node in a process of its own, driven by JSON commands (see postgres-node.ts). */
export class NodeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  readonly #pending = new Map<number, { resolve(value: Record<string, unknown>): void; reject(error: Error): void }>();
  #nextId = 1;
  #stderr = '';

  constructor(options: { databaseUrl: string; schema: string; name: string; env?: Record<string, string> }) {
    this.name = options.name;
    this.child = spawn(
      process.execPath,
      [
        '--conditions=@wardrik/source',
        '--import',
        'tsx',
        nodeScript,
        options.databaseUrl,
        options.schema,
        options.name,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...options.env } },
    );
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise<void>((resolve, reject) => {
      let buffer = '';
      this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
          const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
          buffer = buffer.slice(newline + 1);
          if (line.ready) resolve();
          const waiting = typeof line.id === 'number' ? this.#pending.get(line.id) : undefined;
          if (!waiting) continue;
          this.#pending.delete(line.id as number);
          if (typeof line.error === 'string') waiting.reject(new Error(`${this.name}: ${line.error}`));
          else waiting.resolve(line);
        }
      });
      this.child.once('exit', (code, signal) => {
        const error = new Error(`${this.name} exited (${code ?? signal}):\n${this.#stderr}`);
        reject(error);
        for (const waiting of this.#pending.values()) waiting.reject(error);
        this.#pending.clear();
      });
    });
    this.ready.catch(() => {});
  }

  /** Sends a command; resolves with the node's answer. */
  request(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.child.stdin?.write(`${JSON.stringify({ id, ...command })}\n`);
    });
  }

  async stats(): Promise<NodeStats> {
    return (await this.request({ stats: true })) as unknown as NodeStats;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Kills the process (this benchmark's own child, by its pid) and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.alive) this.child.kill(signal);
    await this.exited;
  }
}
