import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { WRITE_STATEMENTS } from './write-ops.js';

/** Why a commit on the thread failed: SQLite's message and code. */
export interface CommitFailure {
  readonly message: string;
  readonly code?: string;
}

/**
 * The thread's program, plain JavaScript so that it runs the same from the TypeScript sources
 * (tests, benchmarks) and from the built package. It opens its own connection to the database and
 * runs the lists of statements it is sent (see `write-ops.ts`; the loop is `runWriteOps`'s), in
 * order, at `synchronous=NORMAL` (the store makes commits durable with `WalSync`): each list in one
 * transaction with every list sent while the last transaction ran, so that the event loop can hand
 * its writes over as they come (they leave its heap) and the thread still commits them in groups.
 * If that transaction fails, every list in it fails.
 */
const THREAD_PROGRAM = `
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.path, { timeout: workerData.busyTimeoutMs, fileMustExist: true });
database.pragma('journal_mode = WAL');
const statements = workerData.statements.map((statement) => database.prepare(statement.sql));
const counts = workerData.statements.map((statement) => statement.parameters);
database.pragma('synchronous = NORMAL');
const runOps = (ops) => {
  let index = 0;
  while (index < ops.length) {
    const op = ops[index];
    const count = counts[op];
    const at = index + 1;
    // A journal record (3 parameters) without a copy of its parameters: most of what is committed.
    if (count === 3) statements[op].run(ops[at], ops[at + 1], ops[at + 2]);
    else statements[op].run(ops.slice(at, at + count));
    index = at + count;
  }
};
const commit = database.transaction((lists) => {
  for (const ops of lists) runOps(ops);
});
const close = () => {
  database.close();
  parentPort.close();
};
parentPort.on('message', (message) => {
  if (message.type === 'close') return close();
  // The commits sent while the last one ran go in one transaction with this one, in order.
  const ids = [message.id];
  const lists = [message.ops];
  let closing = false;
  for (let next = receiveMessageOnPort(parentPort); next !== undefined; next = receiveMessageOnPort(parentPort)) {
    if (next.message.type === 'close') {
      closing = true;
      break;
    }
    ids.push(next.message.id);
    lists.push(next.message.ops);
  }
  try {
    commit.immediate(lists);
    parentPort.postMessage({ ids });
  } catch (error) {
    parentPort.postMessage({ ids, error: { message: String(error && error.message), code: error && error.code } });
  }
  if (closing) close();
});
`;

/**
 * A worker thread that makes a SQLite store's group commits: the inserts of a commit take the
 * thread's time, not the event loop's. Commits run in the order sent, those sent during a commit
 * together in the next transaction; `commit` resolves once its list is committed (not yet fsynced:
 * see `WalSync`).
 *
 * @example
 * ```ts
 * const thread = new CommitThread('data/wardrik.db', { busyTimeoutMs: 5000 })
 * await thread.commit(writeOps(writes))
 * await thread.close()
 * ```
 */
export class CommitThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: () => void; reject: (failure: CommitFailure) => void }>();
  #nextId = 0;
  #failure: CommitFailure | undefined;
  #closed: Promise<void> | undefined;

  constructor(path: string, options: { readonly busyTimeoutMs: number }) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(THREAD_PROGRAM, {
      eval: true,
      workerData: { path, driver, busyTimeoutMs: options.busyTimeoutMs, statements: WRITE_STATEMENTS },
    });
    // An idle store does not keep the process alive; a commit under way does (see `commit`).
    this.#worker.unref();
    this.#worker.on('message', (message: { ids: number[]; error?: CommitFailure }) => {
      for (const id of message.ids) {
        const pending = this.#pending.get(id);
        this.#pending.delete(id);
        if (message.error) pending?.reject(message.error);
        else pending?.resolve();
      }
      if (this.#pending.size === 0) this.#worker.unref();
    });
    this.#worker.on('error', (error) => this.#stop({ message: `the commit thread failed: ${error.message}` }));
    this.#worker.on('exit', (code) => this.#stop({ message: `the commit thread exited (code ${code})` }));
  }

  /** Commits `ops` (a `writeOps` list) in one transaction. */
  commit(ops: ReadonlyArray<string | number>): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ type: 'commit', id, ops });
    });
  }

  /** Lets the commits sent finish, then closes the thread's connection and ends the thread. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      if (this.#failure) {
        void this.#worker.terminate().then(() => resolve());
        return;
      }
      this.#worker.ref(); // closing keeps the process alive until the thread has let the file go
      this.#worker.once('exit', () => resolve());
      this.#worker.postMessage({ type: 'close' });
    });
    return this.#closed;
  }

  /** The thread is gone: every commit waiting fails, and so does every later one. */
  #stop(failure: CommitFailure): void {
    this.#failure ??= failure;
    for (const pending of this.#pending.values()) pending.reject(this.#failure);
    this.#pending.clear();
  }
}
