/*
 * What the workers tests share: a real Wardrik (SQLite file, AuthService, HTTP server on port 0)
 * and workers started as separate processes (fixtures/workers/*.ts, run through tsx with the
 * `@wardrik/source` condition) that record every call they really run to a file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuthService } from '../src/auth/auth-service.js';
import type { Role } from '../src/auth/types.js';
import { type Agent, createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import type { ModelRequest } from '../src/model/model.js';
import { type RunningServer, type ServerOptions, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import type { HubOptions } from '../src/workers/worker-hub.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('./fixtures/workers/', import.meta.url));

/** How long the tests wait for a process to start or a condition to hold: generous, for loaded machines. */
export const SLOW = 45_000;

/** One line a fixture worker appended to its record file. */
export interface Recorded {
  readonly worker: string;
  readonly pid: number;
  readonly event: 'call' | 'done' | 'cancelled';
  readonly tool: string;
  readonly args?: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
  readonly requestId: string | number;
  readonly at: number;
}

/** What the scripted agents' model was asked, per run input and step. */
export interface SeenRequest {
  readonly input: string;
  readonly step: number;
  readonly tools: ModelRequest['tools'];
}

/** A tool call as the scripted agents make it. */
export interface PlannedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** What a scripted agent's final answer holds: every tool answer it got, in order. */
export interface ToolAnswer {
  readonly name: string;
  readonly content: unknown;
  readonly isError: boolean;
  readonly labels: readonly string[];
}

/**
 * An agent whose model plays the plan in the run's input: `{"steps": [[call, …], …]}` makes the
 * calls of step N at model step N, then answers with the JSON of every tool answer it got.
 */
export function plannedAgent(name: string, workers: readonly string[], seen: SeenRequest[]): Agent {
  return defineAgent({
    name,
    instructions: 'Follow the plan.',
    workers: [...workers],
    model: new ScriptedModel((request) => {
      const first = request.messages[0];
      const input = first?.role === 'user' ? first.content : '{}';
      seen.push({ input, step: request.step, tools: request.tools });
      const plan = JSON.parse(input) as { steps?: PlannedCall[][] };
      const calls = plan.steps?.[request.step - 1];
      if (calls) return { toolCalls: calls };
      const answers: ToolAnswer[] = [];
      for (const message of request.messages) {
        if (message.role === 'tool') {
          answers.push({
            name: message.name,
            content: message.content,
            isError: message.isError,
            labels: message.labels,
          });
        }
      }
      return { text: JSON.stringify(answers) };
    }),
  });
}

/** The run input for a plan. */
export function plan(...steps: PlannedCall[][]): string {
  return JSON.stringify({ steps, nonce: Math.random() });
}

/** A call of worker tool `name` (the model's name is `workers__NAME`). */
export function workerCall(name: string, args: Record<string, unknown>): PlannedCall {
  return { name: `workers__${name}`, arguments: args };
}

/** A worker process started by a test. */
export class WorkerProcess {
  readonly child: ChildProcess;
  readonly name: string;
  /** Resolves when the process says it connected; rejects if it exits first. */
  readonly ready: Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr = '';
  stdout = '';

  constructor(name: string, args: readonly string[]) {
    this.name = name;
    this.child = spawn(process.execPath, ['--conditions=@wardrik/source', '--import', 'tsx', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: withoutWardrikVariables(process.env),
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal: signal as NodeJS.Signals | null })),
    );
    this.ready = new Promise((resolve, reject) => {
      this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        this.stdout += chunk;
        if (this.stdout.includes('ready\n')) resolve();
      });
      void this.exited.then(({ code, signal }) =>
        reject(new Error(`worker ${name} exited (${code ?? signal}) before it was ready: ${this.stderr}`)),
      );
    });
    this.ready.catch(() => {});
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Kills the process with `signal` and waits until it has exited. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exited;
  }
}

/** A principal with a token. */
export interface Credentials {
  readonly id: string;
  readonly name: string;
  readonly token: string;
}

/** Options of a test Wardrik. */
export interface EnvOptions {
  readonly agents?: (seen: SeenRequest[]) => Agent[];
  readonly workers?: HubOptions;
  readonly server?: Partial<Pick<ServerOptions, 'maxWorkerFrameBytes'>>;
}

/** A Wardrik started in-process for the workers tests, and the workers the test started. */
export class WorkersEnv {
  readonly seen: SeenRequest[] = [];
  /** What the hub logged (left-out tools, protocol errors, …). */
  readonly logs: string[] = [];
  readonly record: string;
  readonly dbPath: string;
  readonly processes: WorkerProcess[] = [];
  wardrik!: Wardrik;
  auth!: AuthService;
  server!: RunningServer;
  adminToken = '';
  readonly #options: EnvOptions;
  #counter = 0;

  private constructor(options: EnvOptions) {
    this.#options = options;
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-workers-'));
    this.dbPath = join(dir, 'wardrik.db');
    this.record = join(dir, 'calls.jsonl');
    writeFileSync(this.record, '');
  }

  static async start(options: EnvOptions = {}): Promise<WorkersEnv> {
    const env = new WorkersEnv(options);
    await env.open();
    const admin = await env.auth.ensureAdmin();
    env.adminToken = admin?.token ?? '';
    return env;
  }

  /** Opens (or reopens, after `stop`) the runtime and the server. */
  async open(port = 0): Promise<void> {
    const agents = this.#options.agents?.(this.seen) ?? [
      plannedAgent('support', ['workers/*'], this.seen),
      plannedAgent('billing', ['workers/*'], this.seen),
      plannedAgent('lookups', ['workers/lookup', 'workers/slow_lookup'], this.seen),
    ];
    this.wardrik = await createWardrik({
      store: sqliteStore(this.dbPath),
      agents,
      toolRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      modelRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      workers: {
        handshakeTimeoutMs: 20_000,
        ...this.#options.workers,
        log: (message) => this.logs.push(message),
      },
    });
    this.auth = new AuthService(this.wardrik.store);
    this.server = await startServer({
      wardrik: this.wardrik,
      auth: this.auth,
      port,
      ...this.#options.server,
    });
  }

  /** Closes the server and the runtime (workers stay up and try to reconnect). */
  async stop(): Promise<void> {
    await this.server.close();
    await this.wardrik.close();
  }

  get url(): string {
    return this.server.url;
  }

  /** A new principal with a token; workers get the `worker` role by default. */
  async principal(agents: readonly string[], role: Role = 'worker', name?: string): Promise<Credentials> {
    this.#counter += 1;
    const { principal, token } = await this.auth.createPrincipalWithToken({
      name: name ?? `p${this.#counter}-${Math.random().toString(36).slice(2, 8)}`,
      kind: role === 'worker' ? 'worker' : 'user',
      role,
      agents: [...agents],
    });
    return { id: principal.id, name: principal.name, token };
  }

  /** Starts fixtures/workers/mcp-worker.ts as `name`, connecting with `token`. */
  startWorker(name: string, token: string, options: readonly string[] = []): WorkerProcess {
    return this.spawn(name, [join(FIXTURES, 'mcp-worker.ts'), this.url, token, this.record, name, ...options]);
  }

  /** Starts any fixture (its arguments after the script). */
  spawn(name: string, args: readonly string[]): WorkerProcess {
    const worker = new WorkerProcess(name, args);
    this.processes.push(worker);
    return worker;
  }

  /** Waits until `count` connected workers of `principal` list tools (at least `tool`, if given). */
  async connected(principal: Credentials, count = 1, tool = 'lookup'): Promise<void> {
    await until(
      () =>
        this.wardrik.workers
          .list()
          .filter((worker) => worker.principal === principal.name && worker.tools.includes(tool)).length >= count,
      SLOW,
      () =>
        `${count} worker(s) of ${principal.name} offering ${tool}; connected: ${JSON.stringify(this.wardrik.workers.list())}`,
    );
  }

  /** What the fixture workers recorded, optionally only one tool's lines. */
  records(tool?: string, event?: Recorded['event']): Recorded[] {
    if (!existsSync(this.record)) return [];
    return readFileSync(this.record, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Recorded)
      .filter((line) => (tool === undefined || line.tool === tool) && (event === undefined || line.event === event));
  }

  /** Kills every worker process the test started and waits until the hub has none of them. */
  async killWorkers(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((worker) => worker.kill('SIGKILL')));
    await until(
      () => this.wardrik.workers.list().length === 0,
      SLOW,
      () => 'the workers to be gone',
    );
    writeFileSync(this.record, '');
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((worker) => worker.kill('SIGKILL')));
    await this.server?.close();
    await this.wardrik?.close();
  }

  /** GET on the API with a token (the admin's by default). */
  async get(path: string, token = this.adminToken) {
    const response = await fetch(`${this.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  }

  /** Approves every open `approval` park of a run, as a person would. */
  async approve(runId: string): Promise<number> {
    let approved = 0;
    for (const park of await this.wardrik.listParks({ runId, status: 'open' })) {
      if (park.kind !== 'approval') continue;
      await this.wardrik.answerPark(park.id, { type: 'retry' }, { callHash: park.callHash, by: 'tester' });
      approved += 1;
    }
    return approved;
  }
}

/** The answers a planned agent's final output holds. */
export function answersOf(output: string | undefined): ToolAnswer[] {
  return JSON.parse(output ?? '[]') as ToolAnswer[];
}

/** Which fixture worker produced an answer (its `worker` field), if any. */
export function workerOf(answer: ToolAnswer | undefined): string | undefined {
  const content = answer?.content;
  return typeof content === 'object' && content !== null ? (content as { worker?: string }).worker : undefined;
}

/** Resolves when `check` holds, polling; fails with `describe()` after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = SLOW,
  describe: () => string = () => 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function withoutWardrikVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (!key.startsWith('WARDRIK_')) copy[key] = value;
  return copy;
}
