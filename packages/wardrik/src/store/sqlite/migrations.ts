import type Database from 'better-sqlite3';
import { StoreError } from '../../errors.js';

/** One step of the SQLite schema. Versions start at 1 and go up by one; a released step never changes. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Every SQLite migration, in order. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs, journal and parks',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        principal TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'parked', 'completed', 'failed', 'cancelled')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        summary TEXT NOT NULL
      ) STRICT;
      CREATE INDEX runs_status ON runs (status);

      -- A rowid table with a unique (run_id, seq) index: records are a few hundred bytes, too
      -- large for WITHOUT ROWID to pay off (inserts measured ~40% faster this way).
      CREATE TABLE journal (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        record TEXT NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX journal_run_seq ON journal (run_id, seq);

      CREATE TABLE parks (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('open', 'answered', 'closed')),
        principal TEXT,
        created_at INTEGER NOT NULL,
        park TEXT NOT NULL,
        decision TEXT,
        answered_by TEXT,
        answered_at INTEGER
      ) STRICT;
      CREATE INDEX parks_status_created ON parks (status, created_at);
      CREATE INDEX parks_run ON parks (run_id);
    `,
  },
  {
    version: 2,
    name: 'principals and tokens',
    sql: `
      CREATE TABLE principals (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('user', 'service', 'worker')),
        role TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'user', 'worker')),
        agents TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;

      -- hash is the sha256 of the secret; the secret itself is never stored.
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        principal_id TEXT NOT NULL REFERENCES principals (id),
        hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX tokens_principal ON tokens (principal_id);
    `,
  },
  {
    version: 3,
    name: 'standing decisions',
    sql: `
      CREATE TABLE allowances (
        agent TEXT NOT NULL,
        tool TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        decided_at INTEGER NOT NULL,
        park_id TEXT NOT NULL,
        PRIMARY KEY (agent, tool)
      ) STRICT;
    `,
  },
  {
    version: 4,
    name: 'requests for the node that holds a run',
    sql: `
      -- 0 while a person's answer, sent when another node held the run, waits for its holder to
      -- journal it; every other park is 1.
      ALTER TABLE parks ADD COLUMN recorded INTEGER NOT NULL DEFAULT 1;
      CREATE INDEX parks_unrecorded ON parks (run_id) WHERE recorded = 0;
      CREATE TABLE run_cancels (
        run_id TEXT PRIMARY KEY,
        reason TEXT NOT NULL,
        requested_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 5,
    name: 'sessions and state',
    sql: `
      -- last_run took the latest turn at turn_at; the next run may take one once it is not going.
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        app TEXT NOT NULL,
        principal TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        runs INTEGER NOT NULL DEFAULT 0,
        last_run TEXT,
        turn_at INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX sessions_updated ON sessions (updated_at);
      -- Runs waiting for long-running work: looked over for deadlines and results.
      CREATE INDEX parks_open_external ON parks (created_at) WHERE kind = 'external' AND status = 'open';
      CREATE TABLE session_runs (
        session_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        run_id TEXT NOT NULL,
        PRIMARY KEY (session_id, position)
      ) STRICT;
      -- scope: session:<id>, user:<app>:<principal> or app:<app>; value and labels are JSON.
      CREATE TABLE state_values (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        labels TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        updated_by TEXT NOT NULL,
        PRIMARY KEY (scope, key)
      ) STRICT;
      -- A person's edit, one row per scope it touched; writes is JSON.
      CREATE TABLE state_edits (
        id INTEGER NOT NULL,
        scope TEXT NOT NULL,
        at INTEGER NOT NULL,
        edited_by TEXT NOT NULL,
        reason TEXT NOT NULL,
        writes TEXT NOT NULL,
        PRIMARY KEY (scope, id)
      ) STRICT;
    `,
  },
  {
    version: 6,
    name: 'memories and artifacts',
    sql: `
      -- One message of a conversation per row, kept for (app, principal).
      CREATE TABLE memories (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        app TEXT NOT NULL,
        principal TEXT NOT NULL,
        session_id TEXT,
        run_id TEXT,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        text TEXT NOT NULL,
        labels TEXT NOT NULL,
        at INTEGER NOT NULL,
        embedding BLOB
      ) STRICT;
      CREATE INDEX memories_owner ON memories (app, principal, session_id);

      -- Full-text index of memories (BM25), by the memories' rowid; contentless: the text lives
      -- in memories.
      CREATE VIRTUAL TABLE memories_fts USING fts5(
        text, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
      );

      CREATE TABLE artifacts (
        scope TEXT NOT NULL,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        media_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        data BLOB NOT NULL,
        labels TEXT NOT NULL,
        saved_at INTEGER NOT NULL,
        saved_by TEXT NOT NULL,
        save_key TEXT,
        PRIMARY KEY (scope, name, version)
      ) STRICT;
      CREATE UNIQUE INDEX artifacts_save_key ON artifacts (scope, name, save_key) WHERE save_key IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: 'open parks by kind',
    sql: `
      -- Open parks counted by kind (a metrics scrape) from the index alone.
      CREATE INDEX parks_status_kind ON parks (status, kind);
    `,
  },
  {
    version: 8,
    name: 'retention',
    sql: `
      -- What retention reads, a batch at a time: ended or parked runs by when they were last
      -- written, the runs sessions hold on to, memories by when they were said.
      CREATE INDEX runs_status_updated ON runs (status, updated_at);
      CREATE INDEX session_runs_run ON session_runs (run_id);
      CREATE INDEX memories_at ON memories (at);
    `,
  },
  {
    version: 9,
    name: 'tokens that expire',
    sql: `
      -- When a token stops working on its own (ms); null: it works until revoked.
      ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
    `,
  },
  {
    version: 10,
    name: 'oauth credentials',
    sql: `
      -- What MCP toolsets keep for remote servers that use OAuth: client registrations, tokens,
      -- flows under way; per server, per principal ('' when shared). value is encrypted by the
      -- toolset (AES-256-GCM, key WARDRIK_SECRET_KEY): the store never sees a token in clear.
      CREATE TABLE oauth_credentials (
        server TEXT NOT NULL,
        principal TEXT NOT NULL,
        kind TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (server, principal, kind)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 11,
    name: 'parks by handle',
    sql: `
      -- The park waiting for a result of long-running work (or a child run), found by its handle
      -- when the result comes: one index lookup, however many runs wait (ParkFilter.handle).
      CREATE INDEX parks_handle ON parks (json_extract(park, '$.handle'))
        WHERE json_extract(park, '$.handle') IS NOT NULL;
    `,
  },
];

/** The schema version this code writes. */
export const SQLITE_SCHEMA_VERSION: number = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;

const CREATE_MIGRATIONS_TABLE = `
  CREATE TABLE IF NOT EXISTS migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT
`;

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new StoreError(`migration "${migration.name}" has version ${migration.version}, expected ${index + 1}`);
    }
  });
}

/**
 * Brings the database's schema up to date. Each pending migration runs in its own immediate
 * transaction, which also records it in the `migrations` table (version, name, applied_at), so a
 * migration is either applied and recorded or neither. Running it again is a no-op, and two
 * processes migrating the same file at once apply each step once. A database whose version is
 * newer than this code knows is refused with a `StoreError` naming both versions.
 *
 * @returns the versions applied by this call (empty when the schema was up to date).
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * const database = new Database('wardrik.db');
 * migrateSqlite(database); // [1, 2] the first time, [] afterwards
 * ```
 */
export function migrateSqlite(
  database: Database.Database,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
  now: () => number = Date.now,
): number[] {
  checkOrder(migrations);
  const known = migrations.length;
  const step = database.transaction((): number | undefined => {
    database.exec(CREATE_MIGRATIONS_TABLE);
    const row = database.prepare('SELECT max(version) AS version FROM migrations').get() as {
      version: number | null;
    };
    const current = row.version ?? 0;
    if (current > known) {
      throw new StoreError(
        `the database ${database.name} has schema version ${current}, but this code knows versions up to ${known}: ` +
          'upgrade Wardrik to open it',
      );
    }
    const next = migrations[current];
    if (next === undefined) return undefined;
    try {
      database.exec(next.sql);
      database
        .prepare('INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)')
        .run(next.version, next.name, now());
    } catch (cause) {
      throw new StoreError(
        `migrating ${database.name} failed at version ${next.version} (${next.name}): ${(cause as Error).message}`,
        { cause },
      );
    }
    return next.version;
  });
  const applied: number[] = [];
  for (;;) {
    let version: number | undefined;
    try {
      version = step.immediate();
    } catch (cause) {
      if (StoreError.isInstance(cause)) throw cause;
      throw new StoreError(`migrating ${database.name} failed: ${(cause as Error).message}`, { cause });
    }
    if (version === undefined) return applied;
    applied.push(version);
  }
}
