/*
 * What the workers-across-nodes tests share: several nodes in this process — each a Wardrik with
 * its own HTTP server and worker endpoint — on one store (one MemoryStore, or one PostgreSQL
 * schema with a store per node), and workers started as separate processes (the fixture MCP SDK
 * worker of workers-env.ts) connected to whichever node the test says.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthService } from '../src/auth/auth-service.js';
import type { Role } from '../src/auth/types.js';
import { createWardrik, type Store, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { MemoryStore } from '../src/store/memory-store.js';
import type { HubOptions } from '../src/workers/worker-hub.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';
import {
  type Credentials,
  FIXTURES,
  plannedAgent,
  type Recorded,
  ROOT,
  type SeenRequest,
  SLOW,
  until,
  WorkerProcess,
  withoutWardrikVariables,
} from './workers-env.js';

/** How nodes share a store. */
export interface StoreKind {
  readonly name: string;
  /** A store for one more node of the cluster. */
  store(): Store;
  close(): Promise<void>;
}

/** One MemoryStore shared by every node, or one PostgreSQL schema with a store (and pool) per node. */
export const storeKinds: ReadonlyArray<{ readonly name: string; readonly make: () => StoreKind }> = [
  {
    name: 'one MemoryStore',
    make: () => {
      const shared = new MemoryStore();
      // Each node closes its own view of the store; the store itself closes with the cluster.
      const view = () =>
        new Proxy(shared, {
          get(target, property) {
            if (property === 'close') return async () => {};
            const value = Reflect.get(target, property, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      return { name: 'memory', store: view, close: () => shared.close() };
    },
  },
  {
    name: 'PostgreSQL',
    make: () => {
      const schema = testSchemaName();
      return {
        name: 'postgres',
        store: () => openPostgresTestStore({ schema, keepSchema: true, pool: { max: 3 } }),
        close: () => dropTestSchema(schema),
      };
    },
  },
];

/** Options of one node. */
export interface NodeOptions {
  readonly workers?: HubOptions;
  /** Its lease, and how long it stays alive for the others without beating. Default 60 s. */
  readonly leaseMs?: number;
  /** Wraps the store the node uses (to make some of its calls fail). */
  readonly wrap?: (store: Store) => Store;
}

/** A node of the test cluster. */
export interface TestNode {
  readonly name: string;
  readonly wardrik: Wardrik;
  readonly auth: AuthService;
  readonly server: RunningServer;
  readonly url: string;
  /** What its worker hub logged. */
  readonly logs: string[];
  closed: boolean;
}

/** Nodes in this process on one store, and the worker processes the test started. */
export class NodesEnv {
  readonly seen: SeenRequest[] = [];
  readonly record: string;
  readonly nodes = new Map<string, TestNode>();
  readonly processes: WorkerProcess[] = [];
  readonly kind: StoreKind;
  adminToken = '';
  #counter = 0;

  private constructor(kind: StoreKind) {
    this.kind = kind;
    this.record = join(mkdtempSync(join(tmpdir(), 'wardrik-nodes-')), 'calls.jsonl');
    writeFileSync(this.record, '');
  }

  /** Starts the cluster with nodes `names`; the first node's auth makes an admin token. */
  static async start(kind: StoreKind, names: readonly string[], options: NodeOptions = {}): Promise<NodesEnv> {
    const env = new NodesEnv(kind);
    for (const name of names) await env.addNode(name, options);
    const admin = await env.node(names[0] as string).auth.ensureAdmin();
    env.adminToken = admin?.token ?? '';
    return env;
  }

  /** Starts one more node. */
  async addNode(name: string, options: NodeOptions = {}): Promise<TestNode> {
    const logs: string[] = [];
    const store = this.kind.store();
    const wardrik = await createWardrik({
      store: options.wrap ? options.wrap(store) : store,
      agents: [plannedAgent('support', ['workers/*'], this.seen), plannedAgent('billing', ['workers/*'], this.seen)],
      node: name,
      leaseMs: options.leaseMs ?? 60_000,
      claimIntervalMs: 50,
      toolRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      modelRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      workers: { handshakeTimeoutMs: 20_000, ...options.workers, log: (message) => logs.push(message) },
    });
    const auth = new AuthService(wardrik.store);
    const server = await startServer({ wardrik, auth, port: 0 });
    const node: TestNode = { name, wardrik, auth, server, url: server.url, logs, closed: false };
    this.nodes.set(name, node);
    return node;
  }

  node(name: string): TestNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  /** Closes one node (its server, then its runtime): its workers are disconnected. */
  async closeNode(name: string): Promise<void> {
    const node = this.node(name);
    if (node.closed) return;
    node.closed = true;
    await node.server.close();
    await node.wardrik.close();
  }

  /** A new principal with a token (the `worker` role by default). */
  async principal(agents: readonly string[], role: Role = 'worker'): Promise<Credentials> {
    this.#counter += 1;
    const name = `p${this.#counter}-${Math.random().toString(36).slice(2, 8)}`;
    const { principal, token } = await this.node([...this.nodes.keys()][0] as string).auth.createPrincipalWithToken({
      name,
      kind: role === 'worker' ? 'worker' : 'user',
      role,
      agents: [...agents],
    });
    return { id: principal.id, name: principal.name, token };
  }

  /** Starts the fixture MCP SDK worker `name`, connected to node `at` with `token`. */
  startWorker(at: string, name: string, token: string, options: readonly string[] = []): WorkerProcess {
    const worker = new WorkerProcess(name, [
      join(FIXTURES, 'mcp-worker.ts'),
      this.node(at).url,
      token,
      this.record,
      name,
      ...options,
    ]);
    this.processes.push(worker);
    return worker;
  }

  /** Waits until node `on` knows a worker of `principal` offering `tool` connected to node `at` (`count` of them). */
  async listed(on: string, principal: Credentials, at: string, tool = 'lookup', count = 1): Promise<void> {
    await until(
      () =>
        this.node(on)
          .wardrik.workers.list()
          .filter((each) => each.principal === principal.name && each.node === at && each.tools.includes(tool))
          .length >= count,
      SLOW,
      () =>
        `${count} worker(s) of ${principal.name} on ${at} offering ${tool}, as ${on} sees them: ${JSON.stringify(this.node(on).wardrik.workers.list())}`,
    );
  }

  /** What the fixture workers recorded, optionally only one tool's lines and one kind of event. */
  records(tool?: string, event?: Recorded['event']): Recorded[] {
    return readFileSync(this.record, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Recorded)
      .filter((line) => (tool === undefined || line.tool === tool) && (event === undefined || line.event === event));
  }

  /** GET on node `at`'s API with the admin's token. */
  async get(at: string, path: string) {
    const response = await fetch(`${this.node(at).url}${path}`, {
      headers: { authorization: `Bearer ${this.adminToken}` },
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  }

  /** Approves every open `approval` park of a run on node `at`. */
  async approve(at: string, runId: string): Promise<number> {
    const { wardrik } = this.node(at);
    let approved = 0;
    for (const park of await wardrik.listParks({ runId, status: 'open' })) {
      if (park.kind !== 'approval') continue;
      await wardrik.answerPark(park.id, { type: 'retry' }, { callHash: park.callHash, by: 'tester' });
      approved += 1;
    }
    return approved;
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((worker) => worker.kill('SIGKILL')));
    for (const name of this.nodes.keys()) await this.closeNode(name).catch(() => {});
    await this.kind.close();
  }
}

/** Runs the `wardrik` CLI from source. */
export function wardrikCli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@wardrik/source', '--import', 'tsx', join(ROOT, 'packages/wardrik/src/cli/main.ts'), ...args],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: withoutWardrikVariables(process.env) },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), SLOW);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}
