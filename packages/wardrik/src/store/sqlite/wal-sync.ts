import { close, fdatasync, fsync, open } from 'node:fs';
import { dirname } from 'node:path';

/** How a sync reaches the disk: `fdatasync` on the libuv thread pool (a test may watch it). */
export type SyncFile = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void;

/**
 * Makes the commits of a SQLite database in WAL mode durable without blocking the event loop.
 *
 * The store's connection commits at `synchronous=NORMAL`: a commit appends its frames to the
 * `-wal` file and returns without an fsync (they survive a crash of the process, not of the
 * machine). `FULL` would add one thing: an fsync of the `-wal` file after every commit, made by
 * better-sqlite3 on the event loop. This class makes that fsync instead, on the thread pool, for
 * every commit made before it started: `sync()` resolves once an `fdatasync` of the `-wal` file
 * that began after the call has finished, so a durable write is acknowledged only when it is on
 * disk, as with `FULL`. Syncs never overlap: commits made while one is under way share the next
 * (group commit at the disk as well as in the transaction). SQLite itself still syncs around
 * checkpoints (the `-wal` file before, the database after, the `-wal` header when it is reused),
 * as `NORMAL` does.
 *
 * The `-wal` file is opened at the first sync (a commit made it) and kept open: SQLite keeps the
 * file while the store's connection is open, truncating and reusing it but never replacing it. Its
 * directory is synced once too, as SQLite does for a new `-wal` file, so that the file itself
 * survives a power loss.
 *
 * @example
 * ```ts
 * const wal = new WalSync('data/wardrik.db')
 * database.pragma('synchronous = NORMAL')
 * commit()               // frames in the -wal file, not yet on disk
 * await wal.sync()       // now they are
 * await wal.close()
 * ```
 */
export class WalSync {
  readonly #walPath: string;
  readonly #syncFile: SyncFile;
  #fd: Promise<number> | undefined;
  /** The sync under way, if any. */
  #running: Promise<void> | undefined;
  /** Who asked for a sync while one was under way: served by the next one. */
  #next: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } | undefined;
  #syncs = 0;
  #closed = false;

  constructor(databasePath: string, options: { syncFile?: SyncFile } = {}) {
    this.#walPath = `${databasePath}-wal`;
    this.#syncFile = options.syncFile ?? fdatasync;
  }

  /** How many syncs have finished. */
  get syncs(): number {
    return this.#syncs;
  }

  /** Whether a sync is under way. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Resolves once everything committed before this call is on disk; rejects if a sync fails. */
  sync(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`${this.#walPath} is closed`));
    if (this.#running === undefined) return this.#start();
    if (this.#next === undefined) {
      let resolve!: () => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<void>((resolvePromise, rejectPromise) => {
        resolve = resolvePromise;
        reject = rejectPromise;
      });
      this.#next = { promise, resolve, reject };
    }
    return this.#next.promise;
  }

  /** Waits for the syncs under way, then closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    while (this.#running) await this.#running.catch(() => {});
    this.#closed = true;
    const fd = await this.#fd?.catch(() => undefined);
    if (fd !== undefined) await new Promise<void>((resolve) => close(fd, () => resolve()));
  }

  #start(): Promise<void> {
    const running = this.#syncOnce().finally(() => {
      this.#running = undefined;
      const next = this.#next;
      this.#next = undefined;
      if (next) this.#start().then(next.resolve, next.reject);
    });
    this.#running = running;
    return running;
  }

  async #syncOnce(): Promise<void> {
    this.#fd ??= this.#open();
    const fd = await this.#fd;
    await new Promise<void>((resolve, reject) => {
      this.#syncFile(fd, (error) => (error ? reject(error) : resolve()));
    });
    this.#syncs += 1;
  }

  /** Opens the `-wal` file, and syncs its directory once so that the file's name is on disk too. */
  async #open(): Promise<number> {
    const fd = await new Promise<number>((resolve, reject) => {
      open(this.#walPath, 'r+', (error, opened) => (error ? reject(error) : resolve(opened)));
    });
    await syncDirectory(dirname(this.#walPath));
    return fd;
  }
}

/** fsyncs a directory; where directories can't be opened (Windows), their entries need no sync. */
function syncDirectory(path: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    open(path, 'r', (openError, fd) => {
      if (openError) {
        resolve();
        return;
      }
      fsync(fd, (syncError) => {
        close(fd, () => (syncError && syncError.code !== 'EINVAL' ? reject(syncError) : resolve()));
      });
    });
  });
}
