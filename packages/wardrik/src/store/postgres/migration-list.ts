// The PostgreSQL schema's steps, in order (migrations.ts runs them).

/** One step of the PostgreSQL schema. Versions start at 1 and go up by one; a released step never changes. */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  /** Statements without values, run as one simple query. */
  readonly sql: string;
}

/*
 * Ids and names sort by code point (COLLATE "C"), as the other stores sort them, whatever the
 * database's locale. Times are integer milliseconds (bigint), as the other stores keep them, except a lease's
 * expiry: a timestamptz judged against the database's now(), never a node's clock. Journal
 * records, run summaries and parks are the JSON text the shared column format makes (text, not
 * jsonb: stored as written, never parsed by the server).
 */

/** Every PostgreSQL migration, in order. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'runs, journal, parks and standing decisions',
    sql: `
      CREATE TABLE runs (
        id text COLLATE "C" PRIMARY KEY,
        agent text NOT NULL,
        principal text NOT NULL,
        status text NOT NULL CHECK (status IN ('running', 'parked', 'completed', 'failed', 'cancelled')),
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        summary text NOT NULL
      );
      CREATE INDEX runs_created ON runs (created_at DESC, id DESC);
      CREATE INDEX runs_status_created ON runs (status, created_at DESC, id DESC);

      -- Append-only; a step's cost does not grow with the run (no whole-state checkpoints).
      CREATE TABLE journal (
        run_id text COLLATE "C" NOT NULL,
        seq bigint NOT NULL,
        record text NOT NULL,
        PRIMARY KEY (run_id, seq)
      );

      CREATE TABLE parks (
        id text COLLATE "C" PRIMARY KEY,
        run_id text COLLATE "C" NOT NULL,
        kind text NOT NULL,
        status text NOT NULL CHECK (status IN ('open', 'answered', 'closed')),
        principal text,
        created_at bigint NOT NULL,
        park text NOT NULL,
        decision text,
        answered_by text,
        answered_at bigint,
        -- false while a person's answer, sent when another node held the run, waits for the
        -- run's holder to journal it (RunStore.requests); true for every other park.
        recorded boolean NOT NULL DEFAULT true
      );
      CREATE INDEX parks_created ON parks (created_at, id);
      CREATE INDEX parks_status_created ON parks (status, created_at, id);
      CREATE INDEX parks_run ON parks (run_id);
      CREATE INDEX parks_unrecorded ON parks (run_id) WHERE NOT recorded;

      CREATE TABLE allowances (
        agent text COLLATE "C" NOT NULL,
        tool text COLLATE "C" NOT NULL,
        decided_by text NOT NULL,
        decided_at bigint NOT NULL,
        park_id text NOT NULL,
        PRIMARY KEY (agent, tool)
      );
    `,
  },
  {
    version: 2,
    name: 'principals and tokens',
    sql: `
      CREATE TABLE principals (
        id text PRIMARY KEY,
        name text COLLATE "C" NOT NULL CONSTRAINT principals_name_key UNIQUE,
        kind text NOT NULL CHECK (kind IN ('user', 'service', 'worker')),
        role text NOT NULL CHECK (role IN ('admin', 'operator', 'user', 'worker')),
        agents text NOT NULL,
        created_at bigint NOT NULL
      );

      -- hash is the sha256 of the secret; the secret itself is never stored.
      CREATE TABLE tokens (
        id text COLLATE "C" CONSTRAINT tokens_pkey PRIMARY KEY,
        principal_id text NOT NULL CONSTRAINT tokens_principal_fkey REFERENCES principals (id),
        hash text NOT NULL CONSTRAINT tokens_hash_key UNIQUE,
        created_at bigint NOT NULL,
        revoked_at bigint
      );
      CREATE INDEX tokens_principal ON tokens (principal_id, created_at, id);
    `,
  },
  {
    version: 3,
    name: 'leases and requests',
    sql: `
      -- Who may write each run. A row of its own (not columns of runs), so that renewing a node's
      -- leases never rewrites run rows. node is null once released; the epoch is kept, so the
      -- next holder gets a higher one. expires_at is judged by the database's clock.
      CREATE TABLE leases (
        run_id text COLLATE "C" PRIMARY KEY,
        node text,
        epoch bigint NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX leases_node ON leases (node) WHERE node IS NOT NULL;

      -- A cancel asked for while another node held the run, until its holder acts on it.
      CREATE TABLE run_cancels (
        run_id text COLLATE "C" PRIMARY KEY,
        reason text NOT NULL,
        requested_at bigint NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'workers across nodes',
    sql: `
      -- The nodes whose worker hubs are alive: one row per hub start, kept alive by its beats and
      -- judged by the database's clock. Forgotten (with their offers) a while after they expire.
      CREATE TABLE worker_nodes (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL,
        expires_at timestamptz NOT NULL
      );

      -- What each connected worker offers, written by the node it is connected to. principal,
      -- tools and rejected are JSON text; connected_at is ms by the database's clock; load is the
      -- calls in flight on the worker as its node last said.
      CREATE TABLE worker_offers (
        worker_id text COLLATE "C" PRIMARY KEY,
        node_id text COLLATE "C" NOT NULL,
        node_name text NOT NULL,
        principal text NOT NULL,
        tools text NOT NULL,
        rejected text NOT NULL,
        revision bigint NOT NULL,
        connected_at bigint NOT NULL,
        load integer NOT NULL DEFAULT 0
      );
      CREATE INDEX worker_offers_node ON worker_offers (node_id);

      -- One row: grows at every offer put or removed (in the same transaction), so that a node
      -- knows when to list the offers again.
      CREATE TABLE worker_registry (version bigint NOT NULL);
      INSERT INTO worker_registry (version) VALUES (0);

      -- Messages left for a node (a call for one of its workers, a call's outcome, a cancel),
      -- taken (deleted) by it; its sender may withdraw one not taken yet.
      CREATE TABLE worker_mail (
        id text COLLATE "C" PRIMARY KEY,
        seq bigserial NOT NULL,
        to_node text COLLATE "C" NOT NULL,
        from_node text NOT NULL,
        body text NOT NULL,
        posted_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX worker_mail_to ON worker_mail (to_node, seq);
    `,
  },
  {
    version: 5,
    name: 'sessions and state',
    sql: `
      -- last_run took the latest turn at turn_at (ms); the next run may take one once it is not going.
      CREATE TABLE sessions (
        id text COLLATE "C" PRIMARY KEY,
        agent text NOT NULL,
        app text NOT NULL,
        principal text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        runs integer NOT NULL DEFAULT 0,
        last_run text COLLATE "C",
        turn_at bigint NOT NULL DEFAULT 0
      );
      CREATE INDEX sessions_updated ON sessions (updated_at);
      -- Runs waiting for long-running work: looked over for deadlines and results.
      CREATE INDEX parks_open_external ON parks (created_at, id) WHERE kind = 'external' AND status = 'open';
      CREATE TABLE session_runs (
        session_id text COLLATE "C" NOT NULL,
        position integer NOT NULL,
        run_id text COLLATE "C" NOT NULL,
        PRIMARY KEY (session_id, position)
      );
      -- scope: session:<id>, user:<app>:<principal> or app:<app>; value and labels are JSON text.
      CREATE TABLE state_values (
        scope text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value text NOT NULL,
        labels text NOT NULL,
        updated_at bigint NOT NULL,
        updated_by text NOT NULL,
        PRIMARY KEY (scope, key)
      );
      -- A person's edit, one row per scope it touched; writes is JSON text.
      CREATE SEQUENCE state_edit_ids;
      CREATE TABLE state_edits (
        id bigint NOT NULL,
        scope text COLLATE "C" NOT NULL,
        at bigint NOT NULL,
        edited_by text NOT NULL,
        reason text NOT NULL,
        writes text NOT NULL,
        PRIMARY KEY (scope, id)
      );
    `,
  },
  {
    version: 6,
    name: 'memories and artifacts',
    sql: `
      -- One message of a conversation per row, kept for (app, principal); search is its
      -- full-text vector (english: stemmed, stop words left out), ranked with ts_rank_cd.
      CREATE TABLE memories (
        id text COLLATE "C" PRIMARY KEY,
        app text NOT NULL,
        principal text NOT NULL,
        session_id text COLLATE "C",
        run_id text COLLATE "C",
        role text NOT NULL CHECK (role IN ('user', 'assistant')),
        text text NOT NULL,
        labels text NOT NULL,
        at bigint NOT NULL,
        embedding bytea,
        search tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED
      );
      CREATE INDEX memories_owner ON memories (app, principal, session_id);
      -- The newest of an owner's memories holding common words: walked backwards, never sorted.
      CREATE INDEX memories_recent ON memories (app, principal, at);
      CREATE INDEX memories_search ON memories USING gin (search);

      CREATE TABLE artifacts (
        scope text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        version integer NOT NULL,
        media_type text NOT NULL,
        size bigint NOT NULL,
        data bytea NOT NULL,
        labels text NOT NULL,
        saved_at bigint NOT NULL,
        saved_by text NOT NULL,
        save_key text,
        PRIMARY KEY (scope, name, version)
      );
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
    name: 'leases held by an incarnation',
    sql: `
      -- Which life of its node holds a lease: a node restarted under its old name must neither
      -- renew nor write under its dead predecessor's leases (it takes those runs over instead).
      -- Null on rows written before: no incarnation running now holds them.
      ALTER TABLE leases ADD COLUMN incarnation text;
    `,
  },
  {
    version: 9,
    name: 'retention',
    sql: `
      -- What retention reads, a batch at a time: ended or parked runs by when they were last
      -- written, the runs sessions hold on to, memories by when they were said.
      CREATE INDEX runs_status_updated ON runs (status, updated_at);
      CREATE INDEX session_runs_run ON session_runs (run_id);
      CREATE INDEX memories_at ON memories (at);
      -- Which node sweeps now (one at a time), until expires_at by the database's clock.
      CREATE TABLE retention_sweeps (
        name text COLLATE "C" PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'tokens that expire',
    sql: `
      -- When a token stops working on its own (ms); null: it works until revoked.
      ALTER TABLE tokens ADD COLUMN expires_at bigint;
    `,
  },
  {
    version: 11,
    name: 'oauth credentials',
    sql: `
      -- What MCP toolsets keep for remote servers that use OAuth: client registrations, tokens,
      -- flows under way; per server, per principal ('' when shared). value is encrypted by the
      -- toolset (AES-256-GCM, key WARDRIK_SECRET_KEY): the store never sees a token in clear.
      CREATE TABLE oauth_credentials (
        server text COLLATE "C" NOT NULL,
        principal text COLLATE "C" NOT NULL,
        kind text NOT NULL,
        value text NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (server, principal, kind)
      );
    `,
  },
  {
    version: 12,
    name: 'parks by handle',
    sql: `
      -- The park waiting for a result of long-running work (or a child run), found by its handle
      -- when the result comes: one index lookup, however many runs wait (ParkFilter.handle).
      CREATE INDEX parks_handle ON parks ((park::json ->> 'handle'))
        WHERE (park::json ->> 'handle') IS NOT NULL;
    `,
  },
];
