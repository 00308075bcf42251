/** Options of `postgresStore` (`PostgresStore`). */
export interface PostgresStoreOptions {
  /**
   * The schema the store's tables live in (created by `migrate` if missing), set as each
   * connection's search path. Letters, digits and `_`. Default: the connection's own search path
   * (usually `public`); a dedicated schema keeps Wardrik's tables apart from others'.
   */
  readonly schema?: string;
  /**
   * `true` (default): a durable write resolves once its commit is flushed to the server's WAL
   * (`synchronous_commit` at least `on`; a server set to `remote_write` or `remote_apply` keeps
   * that). `false`: `synchronous_commit = off`, so commits return before the WAL flush; a crash of
   * the PostgreSQL server (not of Wardrik) may then lose the last few hundred milliseconds of
   * acknowledged writes, never corrupting anything. Much cheaper per commit.
   */
  readonly synchronousCommit?: boolean;
  /** How long a non-durable write may wait for a flush, in ms. Default 20. */
  readonly flushIntervalMs?: number;
  /**
   * Flush at once when more journal records than this are queued; a non-durable write made past it
   * resolves once its batch is committed (so that runs that never wait for I/O let the flush run
   * alongside them). Default 5000.
   */
  readonly maxPendingRecords?: number;
  /** How many times a read is tried again after a dropped connection or a restart. Default 3. */
  readonly readRetries?: number;
}

/** Counters for tests and benchmarks. */
export interface PostgresStoreStats {
  /** Write transactions committed: group flushes and park answers. */
  readonly flushes: number;
  /** Journal records committed. */
  readonly recordsWritten: number;
  /** Writes refused because their lease was not the run's lease any more (`LeaseLostError`). */
  readonly writesRefused: number;
}
