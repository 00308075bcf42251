import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Artifact, ArtifactInfo, WardrikError } from '@wardrik/core';
import Database from 'better-sqlite3';
import type { Principal, TokenInfo } from '../../auth/types.js';
import {
  InvalidInputError,
  ParkNotFoundError,
  PrincipalNotFoundError,
  RunNotFoundError,
  StaleParkAnswerError,
  StoreError,
} from '../../errors.js';
import type { ParkDecision, ParkKind, StoredRecord } from '../../journal/records.js';
import type { ArtifactSave, ArtifactScopeId } from '../artifact-store.js';
import {
  checkLimit,
  type ParkColumns,
  parkNotOpenError,
  parkRowFrom,
  type RecordColumns,
  type RunColumns,
  runRowFrom,
  type SerializedWrite,
  serializeWrite,
  storedRecordFrom,
} from '../columns.js';
import type { FoundMemory, MemoryFilter, MemoryQuery, StoredMemory } from '../memory-index.js';
import type { OAuthCredentialKey, OAuthCredentialKind, StoredOAuthCredential } from '../oauth-store.js';
import {
  type PrincipalColumns,
  principalColumns,
  principalFrom,
  type TokenColumns,
  tokenColumns,
  tokenInfoFrom,
} from '../principal-columns.js';
import { ProcessLeases } from '../process-leases.js';
import { ProcessSweepLock } from '../process-sweep-lock.js';
import { ProcessWorkerStore } from '../process-worker-store.js';
import {
  checkBatch,
  checkKeepVersions,
  checkPurgeRunsQuery,
  checkTime,
  type PurgeArtifactsQuery,
  type PurgedRuns,
  type PurgeMemoriesQuery,
  type PurgeRunsQuery,
  type PurgeSessionsQuery,
} from '../retention-store.js';
import type { CommitStats } from '../run-store.js';
import type {
  SessionFilter,
  SessionRow,
  StateEdit,
  StateScopeId,
  StoredStateEdit,
  StoredStateValue,
  TurnClaim,
} from '../session-store.js';
import type {
  Allowance,
  ClaimOptions,
  Lease,
  LeaseHolderState,
  LeaseTerms,
  ParkAnswerWrite,
  ParkFilter,
  ParkRow,
  PendingAnswer,
  RunFilter,
  RunRequests,
  RunRow,
  RunSignal,
  RunWrite,
  Store,
} from '../store.js';
import type { Heartbeat, NodeMessage, OfferList, Pulse, WorkerOffer, WorkerSignal } from '../worker-store.js';
import { SqliteGroupCommit } from './group-commit.js';
import { migrateSqlite } from './migrations.js';
import { RuntimeLock } from './runtime-lock.js';
import { prepareArtifacts, type SqliteArtifacts } from './sqlite-artifacts.js';
import { advice, sqliteFailure } from './sqlite-errors.js';
import { prepareMemories, type SqliteMemories } from './sqlite-memories.js';
import { prepareOAuth, type SqliteOAuth } from './sqlite-oauth.js';
import { prepareRetention, type SqliteRetention } from './sqlite-retention.js';
import { prepareSessions, type SqliteSessions } from './sqlite-sessions.js';
import { type SyncFile, WalSync } from './wal-sync.js';
import { prepareWriteStatements, runWriteOps, writeOps } from './write-ops.js';

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * `full` (default): a commit is on disk when it returns, even across a power loss.
   * `normal`: in WAL mode, commits survive a crash of the process but the last ones may be lost
   * with the machine; much cheaper.
   */
  readonly synchronous?: 'full' | 'normal';
  /**
   * How long a non-durable write may wait for a flush, in ms. Default 20. With `commits:
   * 'background'`, 200 waiting records are sent to the commit thread at once anyway.
   */
  readonly flushIntervalMs?: number;
  /** Flush at once when more journal records than this are queued. Default 5000. */
  readonly maxPendingRecords?: number;
  /** How long to wait for another connection's write lock, in ms. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * Where commits are made. `background` (default, for a database file): group commits by a
   * worker thread with its own connection (`CommitThread`), and at `synchronous: 'full'` the fsync
   * that makes them durable on the thread pool (`WalSync`), so the event loop goes on serving
   * meanwhile. `inline`: on the event loop, with SQLite's own `FULL` (kept for comparison in
   * benchmarks).
   */
  readonly commits?: 'background' | 'inline';
  /** For tests: how the background fsync reaches the disk (default `fs.fdatasync`). */
  readonly syncFile?: SyncFile;
}

/** Counters for tests and benchmarks. */
export interface SqliteStoreStats {
  /** Write transactions committed: group flushes and park answers. */
  readonly flushes: number;
  /** Journal records committed. */
  readonly recordsWritten: number;
  /** Background fsyncs of the `-wal` file finished (0 unless commits are made in the background at FULL). */
  readonly syncs: number;
  /** Of `flushes`, those the commit thread made (large ones, in the background mode). */
  readonly threadFlushes: number;
}

type RunRecordColumns = Pick<RecordColumns, 'seq' | 'record'>;
type ParkState = Pick<ParkColumns, 'status' | 'answered_at' | 'answered_by'>;
/** A token joined with its principal; the principal's columns carry a `principal_` prefix. */
type TokenWithPrincipalColumns = TokenColumns & {
  readonly principal_name: string;
  readonly principal_kind: string;
  readonly principal_role: string;
  readonly principal_agents: string;
  readonly principal_created_at: number;
};

interface Statements {
  readonly markUnrecorded: Database.Statement<[string]>;
  readonly runsToDrive: Database.Statement<[], { id: string; agent: string }>;
  readonly unrecordedAnswers: Database.Statement<
    [string],
    { id: string; decision: string; answered_by: string; answered_at: number }
  >;
  readonly cancelOf: Database.Statement<[string], { reason: string; requested_at: number }>;
  readonly requestCancel: Database.Statement<[string, string, number]>;
  readonly requestAnswer: Database.Transaction<
    (answer: PendingAnswer & { readonly callHash: string }, decision: string) => string
  >;
  readonly answerPark: Database.Statement<[string, string, number, string], { run_id: string }>;
  readonly parkState: Database.Statement<[string], ParkState>;
  readonly getRun: Database.Statement<[string], RunColumns>;
  readonly getPark: Database.Statement<[string], ParkColumns>;
  readonly countOpenParks: Database.Statement<[], { kind: ParkKind; count: number }>;
  readonly loadJournal: Database.Statement<[string, number], RunRecordColumns>;
  readonly lastSeq: Database.Statement<[string], { seq: number | null }>;
  readonly flush: Database.Transaction<(ops: ReadonlyArray<string | number>) => void>;
  readonly answer: Database.Transaction<(answer: ParkAnswerWrite, decision: string, write: SerializedWrite) => void>;
  readonly getPrincipal: Database.Statement<[string], PrincipalColumns>;
  readonly listPrincipals: Database.Statement<[], PrincipalColumns>;
  readonly findTokenByHash: Database.Statement<[string], TokenWithPrincipalColumns>;
  readonly revokeToken: Database.Statement<[number, string]>;
  readonly listTokens: Database.Statement<[], TokenColumns>;
  readonly listTokensOf: Database.Statement<[string], TokenColumns>;
  readonly putPrincipal: Database.Transaction<(principal: PrincipalColumns) => void>;
  readonly putToken: Database.Transaction<(token: TokenColumns) => void>;
  readonly sessions: SqliteSessions;
  readonly memories: SqliteMemories;
  readonly artifacts: SqliteArtifacts;
  readonly oauth: SqliteOAuth;
}

/**
 * The embedded store: one SQLite file (WAL, `synchronous=FULL` by default) through better-sqlite3.
 *
 * Writes are queued and flushed together in one transaction (group commit). better-sqlite3 is
 * synchronous, so the flushes are made by a worker thread with its own connection
 * (`CommitThread`), and at `synchronous: 'full'` the fsync that makes them durable is made on the
 * thread pool (`WalSync`): neither blocks the event loop (`commits: 'inline'` makes both here).
 * A durable write resolves after the flush that contains it is on disk; the flush runs on
 * `setImmediate`, so the durable writes of every run made in the same event-loop turn share one
 * transaction and one fsync. A non-durable write resolves at once and reaches disk with the next
 * flush: a durable write's, a read's, a timer's (`flushIntervalMs`), sooner when more than
 * `maxPendingRecords` records wait, and in the background as soon as 200 records wait (under load
 * the commit thread commits continuously, beside the event loop). If a flush fails, everything it
 * held is lost (non-durable writes included, which were already acknowledged), so the store fails:
 * the durable writes of that flush and every later call reject with a `StoreError` carrying the
 * cause. Reopen it, and recover the runs from what is on disk.
 *
 * @example
 * ```ts
 * const store = sqliteStore('data/wardrik.db');
 * await store.migrate();
 * const run: RunRow = {
 *   id: 'r1', agent: 'support', principal: 'alice', status: 'running',
 *   createdAt: Date.now(), updatedAt: Date.now(), measures: {}, labels: [],
 * };
 * // Many runs writing in the same event-loop turn share one commit.
 * await store.write({ runId: 'r1', run, records: [] }, { durable: true });
 * console.log(await store.getRun('r1'), store.stats()); // { flushes: 1, recordsWritten: 0 }
 * await store.close();
 * ```
 */
export class SqliteStore implements Store {
  /** The file's path. */
  readonly path: string;
  private readonly database: Database.Database;
  private statements: Statements | undefined;
  private readonly listStatements = new Map<string, Database.Statement<unknown[], unknown>>();
  /** The queue of run writes and their group commits. */
  private readonly commits: SqliteGroupCommit;
  private failure: StoreError | undefined;
  private readonly failureListeners = new Set<(error: StoreError) => void>();
  private readonly commitListeners = new Set<(commit: CommitStats) => void>();
  private runtimeLock: RuntimeLock | undefined;
  /** One process holds the file (`lockForRuntime`), so its leases live in memory and never expire. */
  private readonly leases = new ProcessLeases({ expire: false });
  /**
   * One process holds the file, so its one node's worker registry lives in memory too (it has no
   * other nodes to route calls to).
   */
  private readonly workerStore = new ProcessWorkerStore({ check: () => this.checkUsable() });
  /** One process holds the file: the retention sweep's lock lives in memory. */
  private readonly sweepLock = new ProcessSweepLock();
  private retentionStatements: SqliteRetention | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Makes commits durable off the event loop (in the background at `synchronous: 'full'`). */
  private readonly walSync: WalSync | undefined;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const synchronous = options.synchronous ?? 'full';
    if (synchronous !== 'full' && synchronous !== 'normal') {
      throw new StoreError(`synchronous must be 'full' or 'normal', got ${String(synchronous)}`);
    }
    const inMemory = path === ':memory:' || path === '';
    const commits = options.commits ?? 'background';
    if (commits !== 'background' && commits !== 'inline') {
      throw new StoreError(`commits must be 'background' or 'inline', got ${String(commits)}`);
    }
    const background = commits === 'background' && !inMemory;
    let database: Database.Database | undefined;
    try {
      // Journals can hold private data: a directory made here is the owner's only, and so is a new
      // file (SQLite gives its -wal and -shm files the database file's permissions).
      const created = !inMemory && !existsSync(path);
      if (!inMemory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      database = new Database(path, { timeout: busyTimeoutMs });
      if (created) chmodSync(path, 0o600);
      const mode = database.pragma('journal_mode = WAL', { simple: true });
      if (!inMemory && mode !== 'wal') throw new Error(`it stays in journal_mode ${String(mode)}, not WAL`);
      // In the background mode SQLite commits at NORMAL and `WalSync` adds FULL's fsync off the loop.
      database.pragma(`synchronous = ${synchronous === 'full' && !background ? 'FULL' : 'NORMAL'}`);
    } catch (cause) {
      database?.close();
      const code = String((cause as { code?: unknown }).code ?? '');
      throw new StoreError(
        `cannot open the SQLite database ${path}: ${(cause as Error).message}${advice(code, path)}`,
        {
          cause,
        },
      );
    }
    this.database = database;
    this.walSync =
      background && synchronous === 'full'
        ? new WalSync(path, options.syncFile ? { syncFile: options.syncFile } : {})
        : undefined;
    this.commits = new SqliteGroupCommit({
      path,
      background,
      walSync: this.walSync,
      busyTimeoutMs,
      flushIntervalMs: options.flushIntervalMs ?? 20,
      maxPendingRecords: options.maxPendingRecords ?? 5000,
      // The queue is only filled once ready() has prepared the statements.
      commitHere: (ops) => this.statements!.flush.immediate(ops),
      commitListeners: this.commitListeners,
      fail: (error) => this.fail(error),
      failure: () => this.failure,
    });
  }

  /** Creates or upgrades the schema. The other methods do it on first use, so calling it is optional. */
  async migrate(): Promise<void> {
    if (this.statements === undefined) this.ready();
    else {
      this.checkUsable();
      migrateSqlite(this.database);
    }
  }

  write(write: RunWrite, options: { durable: boolean }): Promise<void> {
    let serialized: SerializedWrite;
    try {
      this.ready();
      serialized = serializeWrite(write);
      if (serialized.lease) this.leases.check(serialized.lease);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.commits.enqueue(serialized, options.durable);
  }

  async answerPark(answer: ParkAnswerWrite): Promise<void> {
    const statements = this.ready();
    const write = serializeWrite(answer.write);
    if (write.lease) this.leases.check(write.lease);
    const decision = JSON.stringify(answer.decision);
    await this.commits.drain();
    const began = performance.now();
    try {
      statements.answer.immediate(answer, decision, write);
    } catch (cause) {
      throw sqliteFailure(this.path, `answering park ${answer.parkId}`, cause);
    }
    // Journaled outside the queue, and counted (and told to commit listeners) all the same.
    await this.commits.committedHere({ writes: [write], began });
  }

  async claimRun(runId: string, terms: LeaseTerms): Promise<Lease | undefined> {
    this.checkUsable();
    return this.leases.claim(runId, terms);
  }

  async claimRuns(terms: LeaseTerms, limit: number, options: ClaimOptions = {}): Promise<Lease[]> {
    const { agents, predecessors } = options;
    const ids = await this.read('finding runs to drive', (statements) => statements.runsToDrive.all());
    const claimed: Lease[] = [];
    for (const { id, agent } of ids) {
      if (claimed.length >= limit) break;
      if (agents && !agents.includes(agent)) continue;
      if (!this.leases.isClaimable(id, terms, predecessors)) continue;
      const lease = this.leases.claim(id, terms);
      if (lease) claimed.push(lease);
    }
    return claimed;
  }

  async renewLeases(terms: LeaseTerms): Promise<ReadonlySet<string>> {
    this.checkUsable();
    return this.leases.renew(terms);
  }

  async leaseHolderState(node: string, incarnation: string): Promise<LeaseHolderState> {
    this.checkUsable();
    return this.leases.holderState(node, incarnation);
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.checkUsable();
    if (this.leases.release(lease) && (await this.hasRequests(lease.runId))) {
      this.leases.signal({ type: 'claimable', runId: lease.runId });
    }
  }

  async requestAnswer(answer: PendingAnswer & { readonly callHash: string }): Promise<void> {
    const statements = this.ready();
    await this.commits.drain();
    let runId: string;
    try {
      runId = statements.requestAnswer.immediate(answer, JSON.stringify(answer.decision));
    } catch (cause) {
      throw sqliteFailure(this.path, `answering park ${answer.parkId}`, cause);
    }
    await this.commits.committedHere();
    this.leases.signal({ type: 'requested', runId });
  }

  async requestCancel(runId: string, reason: string, at: number): Promise<void> {
    const statements = this.ready();
    if ((await this.getRun(runId)) === undefined) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    await this.writeNow(`asking run ${runId} to cancel`, () => statements.requestCancel.run(runId, reason, at));
    this.leases.signal({ type: 'requested', runId });
  }

  async requests(runId: string): Promise<RunRequests> {
    return this.read(`reading the requests of run ${runId}`, (statements) => {
      const answers = statements.unrecordedAnswers.all(runId).map(
        (row): PendingAnswer => ({
          parkId: row.id,
          decision: JSON.parse(row.decision) as ParkDecision,
          by: row.answered_by,
          at: row.answered_at,
        }),
      );
      const cancel = statements.cancelOf.get(runId);
      return { answers, ...(cancel ? { cancel: { reason: cancel.reason, at: cancel.requested_at } } : {}) };
    });
  }

  onRunSignal(listener: (signal: RunSignal) => void): () => void {
    return this.leases.onSignal(listener);
  }

  beat(heartbeat: Heartbeat): Promise<Pulse> {
    return this.workerStore.beat(heartbeat);
  }

  leave(nodeId: string): Promise<void> {
    return this.workerStore.leave(nodeId);
  }

  putOffer(offer: WorkerOffer): Promise<number> {
    return this.workerStore.putOffer(offer);
  }

  removeOffer(workerId: string): Promise<void> {
    return this.workerStore.removeOffer(workerId);
  }

  listOffers(): Promise<OfferList> {
    return this.workerStore.listOffers();
  }

  post(to: string, message: NodeMessage): Promise<boolean> {
    return this.workerStore.post(to, message);
  }

  takeMail(nodeId: string): Promise<NodeMessage[]> {
    return this.workerStore.takeMail(nodeId);
  }

  withdraw(messageId: string): Promise<boolean> {
    return this.workerStore.withdraw(messageId);
  }

  note(to: string, body: string): Promise<void> {
    return this.workerStore.note(to, body);
  }

  onWorkerSignal(listener: (signal: WorkerSignal) => void): () => void {
    return this.workerStore.onWorkerSignal(listener);
  }

  private async hasRequests(runId: string): Promise<boolean> {
    const requests = await this.requests(runId);
    return requests.answers.length > 0 || requests.cancel !== undefined;
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    const row = await this.read(`reading run ${runId}`, (statements) => statements.getRun.get(runId));
    return row === undefined ? undefined : runRowFrom(row);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    const limit = checkLimit(filter.limit);
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    if (filter.status !== undefined) {
      const statuses: readonly string[] = typeof filter.status === 'string' ? [filter.status] : filter.status;
      if (statuses.length === 0) return [];
      conditions.push(`status IN (${statuses.map(() => '?').join(', ')})`);
      parameters.push(...statuses);
    }
    if (filter.agent !== undefined) {
      conditions.push('agent = ?');
      parameters.push(filter.agent);
    }
    if (filter.agents !== undefined) {
      if (filter.agents.length === 0) return [];
      conditions.push(`agent IN (${filter.agents.map(() => '?').join(', ')})`);
      parameters.push(...filter.agents);
    }
    if (filter.principal !== undefined) {
      conditions.push('principal = ?');
      parameters.push(filter.principal);
    }
    parameters.push(limit ?? -1);
    const sql = `SELECT * FROM runs${where(conditions)} ORDER BY created_at DESC, id DESC LIMIT ?`;
    const rows = await this.read('listing runs', () => this.listStatement(sql).all(...parameters) as RunColumns[]);
    return rows.map(runRowFrom);
  }

  async loadJournal(runId: string, afterSeq?: number): Promise<StoredRecord[]> {
    const rows = await this.read(`reading the journal of run ${runId}`, (statements) =>
      statements.loadJournal.all(runId, afterSeq ?? Number.MIN_SAFE_INTEGER),
    );
    return rows.map((row) => storedRecordFrom(runId, row));
  }

  async lastSeq(runId: string): Promise<number> {
    const row = await this.read(`reading the journal of run ${runId}`, (statements) => statements.lastSeq.get(runId));
    return row?.seq ?? 0;
  }

  async getPark(parkId: string): Promise<ParkRow | undefined> {
    const row = await this.read(`reading park ${parkId}`, (statements) => statements.getPark.get(parkId));
    return row === undefined ? undefined : parkRowFrom(row);
  }

  async countOpenParks(): Promise<Partial<Record<ParkKind, number>>> {
    const rows = await this.read('counting open parks', (statements) => statements.countOpenParks.all());
    return Object.fromEntries(rows.map((row) => [row.kind, row.count]));
  }

  async listParks(filter: ParkFilter = {}): Promise<ParkRow[]> {
    const limit = checkLimit(filter.limit);
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    if (filter.status !== undefined) {
      conditions.push('status = ?');
      parameters.push(filter.status);
    }
    if (filter.runId !== undefined) {
      conditions.push('run_id = ?');
      parameters.push(filter.runId);
    }
    if (filter.kind !== undefined) {
      conditions.push('kind = ?');
      parameters.push(filter.kind);
    }
    if (filter.agents !== undefined) {
      if (filter.agents.length === 0) return [];
      conditions.push(`run_id IN (SELECT id FROM runs WHERE agent IN (${filter.agents.map(() => '?').join(', ')}))`);
      parameters.push(...filter.agents);
    }
    if (filter.principal !== undefined) {
      conditions.push('principal = ?');
      parameters.push(filter.principal);
    }
    const newest = filter.order === 'newest';
    if (filter.after !== undefined) {
      conditions.push(`(created_at, id) ${newest ? '<' : '>'} (?, ?)`);
      parameters.push(filter.after.createdAt, filter.after.id);
    }
    parameters.push(limit ?? -1);
    const order = newest ? 'created_at DESC, id DESC' : 'created_at, id';
    const sql = `SELECT * FROM parks${where(conditions)} ORDER BY ${order} LIMIT ?`;
    const rows = await this.read('listing parks', () => this.listStatement(sql).all(...parameters) as ParkColumns[]);
    return rows.map(parkRowFrom);
  }

  async putPrincipal(principal: Principal): Promise<void> {
    const statements = this.ready();
    const columns = principalColumns(principal);
    await this.writeNow(`writing principal ${columns.id}`, () => statements.putPrincipal.immediate(columns));
  }

  async putAllowance(allowance: Allowance): Promise<void> {
    const database = this.database;
    this.ready();
    await this.writeNow(`writing the allowance of ${allowance.tool} for ${allowance.agent}`, () => {
      database
        .prepare(
          'INSERT INTO allowances (agent, tool, decided_by, decided_at, park_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent, tool) DO UPDATE SET decided_by = excluded.decided_by, decided_at = excluded.decided_at, park_id = excluded.park_id',
        )
        .run(allowance.agent, allowance.tool, allowance.by, allowance.at, allowance.parkId);
    });
  }

  async listAllowances(): Promise<Allowance[]> {
    this.ready();
    const rows = (await this.read('listing standing decisions', () =>
      this.database.prepare('SELECT * FROM allowances ORDER BY agent, tool').all(),
    )) as Array<{
      agent: string;
      tool: string;
      decided_by: string;
      decided_at: number;
      park_id: string;
    }>;
    return rows.map((row) => ({
      agent: row.agent,
      tool: row.tool,
      by: row.decided_by,
      at: row.decided_at,
      parkId: row.park_id,
    }));
  }

  async getPrincipal(id: string): Promise<Principal | undefined> {
    const row = this.readNow(`reading principal ${id}`, (statements) => statements.getPrincipal.get(id));
    return row === undefined ? undefined : principalFrom(row);
  }

  async listPrincipals(): Promise<Principal[]> {
    return this.readNow('listing principals', (statements) => statements.listPrincipals.all()).map(principalFrom);
  }

  async putToken(token: TokenInfo & { readonly hash: string }): Promise<void> {
    const statements = this.ready();
    const columns = tokenColumns(token);
    await this.writeNow(`writing token ${columns.id}`, () => statements.putToken.immediate(columns));
  }

  async findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined> {
    const row = this.readNow('looking a token up', (statements) => statements.findTokenByHash.get(hash));
    if (row === undefined) return undefined;
    const principal = principalFrom({
      id: row.principal_id,
      name: row.principal_name,
      kind: row.principal_kind,
      role: row.principal_role,
      agents: row.principal_agents,
      created_at: row.principal_created_at,
    });
    return { ...tokenInfoFrom(row), hash: row.hash, principal };
  }

  async revokeToken(id: string, at: number): Promise<boolean> {
    const statements = this.ready();
    if (!Number.isSafeInteger(at)) throw new StoreError(`token ${id}: revokedAt must be an integer time in ms`);
    let changes = 0;
    await this.writeNow(`revoking token ${id}`, () => {
      changes = statements.revokeToken.run(at, id).changes;
    });
    return changes > 0;
  }

  async listTokens(principalId?: string): Promise<TokenInfo[]> {
    const rows = this.readNow('listing tokens', (statements) =>
      principalId === undefined ? statements.listTokens.all() : statements.listTokensOf.all(principalId),
    );
    return rows.map(tokenInfoFrom);
  }

  async getOAuthCredential(key: OAuthCredentialKey): Promise<StoredOAuthCredential | undefined> {
    return this.readNow(`reading the OAuth ${key.kind} of ${key.server}`, (statements) => statements.oauth.get(key));
  }

  async putOAuthCredential(credential: StoredOAuthCredential): Promise<void> {
    if (!Number.isSafeInteger(credential.updatedAt)) {
      throw new StoreError(`OAuth ${credential.kind} of ${credential.server}: updatedAt must be an integer time in ms`);
    }
    await this.writeNowResult(`writing the OAuth ${credential.kind} of ${credential.server}`, (statements) =>
      statements.oauth.put(credential),
    );
  }

  async deleteOAuthCredentials(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): Promise<number> {
    return this.writeNowResult(`deleting OAuth credentials of ${filter.server}`, (statements) =>
      statements.oauth.delete(filter),
    );
  }

  /** Flushes what is queued, then closes the file once it is on disk. Calling it again does nothing. */
  async close(): Promise<void> {
    if (this.closing) return this.closing.catch(() => {});
    this.closing = this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    let failure: unknown;
    this.closed = true; // from here on, calls are refused
    try {
      await this.commits.drain();
      // A failed store has nothing more to make durable: it only lets its file go.
      if (this.failure === undefined) await this.commits.synced();
    } catch (error) {
      failure = error;
    }
    await this.commits.close();
    await this.walSync?.close();
    this.database.close();
    this.runtimeLock?.release();
    this.runtimeLock = undefined;
    if (failure !== undefined) throw failure;
  }

  /** How many write transactions committed, and how many journal records they held. */
  stats(): SqliteStoreStats {
    return {
      ...this.commits.stats,
      syncs: this.walSync?.syncs ?? 0,
    };
  }

  onFailure(listener: (error: StoreError) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  onCommit(listener: (commit: CommitStats) => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /**
   * Takes the lock file `<path>.lock` for this process (see `RuntimeLock`), so that a second process
   * on the same file fails at once, naming the holder, instead of recovering runs this one drives.
   * An in-memory database needs none.
   */
  async lockForRuntime(): Promise<void> {
    this.checkUsable();
    if (this.runtimeLock || this.path === ':memory:' || this.path === '') return;
    this.runtimeLock = RuntimeLock.take(`${this.path}.lock`, this.path);
  }

  /** The store can't be trusted any more: keep why, refuse every later call, tell the listeners once. */
  private fail(error: WardrikError): void {
    if (this.failure !== undefined) return;
    this.failure = StoreError.isInstance(error) ? error : new StoreError(error.message, { cause: error });
    for (const listener of [...this.failureListeners]) {
      try {
        listener(this.failure);
      } catch {
        // One listener's failure must not keep the others from hearing.
      }
    }
  }

  private checkUsable(): void {
    if (this.closed) throw new StoreError(`the store ${this.path} is closed`);
    if (this.failure !== undefined) {
      throw new StoreError(`the store ${this.path} failed and must be reopened: ${this.failure.message}`, {
        cause: this.failure,
      });
    }
  }

  /** Checks the store is usable, migrating and preparing the statements on first use. */
  createSession(session: SessionRow): Promise<boolean> {
    return this.writeNowResult('creating a session', (statements) => statements.sessions.createSession(session));
  }

  async getSession(id: string): Promise<SessionRow | undefined> {
    return this.read('reading a session', (statements) => statements.sessions.getSession(id));
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    return this.read('listing sessions', (statements) => statements.sessions.listSessions(filter));
  }

  deleteSession(id: string): Promise<boolean> {
    return this.writeNowResult('deleting a session', (statements) => statements.sessions.deleteSession(id));
  }

  claimTurn(sessionId: string, runId: string, at: number, startingMs: number): Promise<TurnClaim> {
    return this.writeNowResult("taking a session's turn", (statements) =>
      statements.sessions.claimTurn(sessionId, runId, at, startingMs),
    );
  }

  async sessionRuns(sessionId: string): Promise<string[]> {
    return this.read("listing a session's runs", (statements) => statements.sessions.sessionRuns(sessionId));
  }

  async loadState(scopes: readonly StateScopeId[]): Promise<StoredStateValue[]> {
    // Every run reads its state once: without state writes queued, it need not commit the queue first.
    const query = (statements: Statements) => statements.sessions.loadState(scopes);
    return this.commits.holdsStateWrites ? this.read('reading state', query) : this.readNow('reading state', query);
  }

  editState(edit: StateEdit): Promise<void> {
    return this.writeNowResult('editing state', (statements) => statements.sessions.editState(edit));
  }

  async listStateEdits(scope: StateScopeId): Promise<StoredStateEdit[]> {
    return this.read('listing state edits', (statements) => statements.sessions.listStateEdits(scope));
  }

  addMemories(memories: readonly StoredMemory[]): Promise<number> {
    return this.writeNowResult('adding memories', (statements) => statements.memories.addMemories(memories));
  }

  async knownMemories(ids: readonly string[]): Promise<string[]> {
    return this.readNow('reading memories', (statements) => statements.memories.knownMemories(ids));
  }

  async searchMemories(query: MemoryQuery): Promise<FoundMemory[]> {
    return this.readNow('searching memories', (statements) => statements.memories.searchMemories(query));
  }

  async memoryEmbeddings(app: string, principal: string): Promise<{ id: string; embedding: Float32Array }[]> {
    return this.readNow('reading embeddings', (statements) => statements.memories.memoryEmbeddings(app, principal));
  }

  async getMemories(ids: readonly string[]): Promise<Omit<StoredMemory, 'embedding'>[]> {
    return this.readNow('reading memories', (statements) => statements.memories.getMemories(ids));
  }

  deleteMemories(filter: MemoryFilter): Promise<number> {
    return this.writeNowResult('deleting memories', (statements) => statements.memories.deleteMemories(filter));
  }

  saveArtifact(save: ArtifactSave): Promise<ArtifactInfo> {
    return this.writeNowResult(`saving artifact ${save.name}`, (statements) => statements.artifacts.saveArtifact(save));
  }

  async loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Promise<Artifact | undefined> {
    return this.readNow(`loading artifact ${name}`, (statements) =>
      statements.artifacts.loadArtifact(scope, name, version),
    );
  }

  async listArtifacts(scopes: readonly ArtifactScopeId[]): Promise<ArtifactInfo[]> {
    return this.readNow('listing artifacts', (statements) => statements.artifacts.listArtifacts(scopes));
  }

  async artifactVersions(scope: ArtifactScopeId, name: string): Promise<ArtifactInfo[]> {
    return this.readNow(`listing the versions of artifact ${name}`, (statements) =>
      statements.artifacts.artifactVersions(scope, name),
    );
  }

  labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly string[]): Promise<void> {
    return this.writeNowResult(`labelling artifact ${name}`, (statements) =>
      statements.artifacts.labelArtifact(scope, name, version, labels),
    );
  }

  deleteArtifact(scope: ArtifactScopeId, name: string): Promise<number> {
    return this.writeNowResult(`deleting artifact ${name}`, (statements) =>
      statements.artifacts.deleteArtifact(scope, name),
    );
  }

  async purgeRuns(query: PurgeRunsQuery): Promise<PurgedRuns> {
    checkPurgeRunsQuery(query);
    const retention = this.retention();
    let purged: PurgedRuns = { runIds: [], records: 0 };
    await this.writeNow('purging runs', () => {
      // A run whose lease is held is being driven or given up right now: the next sweep takes it.
      const runIds = retention.runCandidates(query).filter((runId) => !this.leases.isHeld(runId));
      const records = runIds.length === 0 ? 0 : retention.deleteRuns(runIds);
      for (const runId of runIds) this.leases.forget(runId);
      purged = { runIds, records };
    });
    return purged;
  }

  async purgeSessions(query: PurgeSessionsQuery): Promise<number> {
    checkTime(query.idleBefore, 'idleBefore');
    checkBatch(query.limit);
    const retention = this.retention();
    return this.writeNowResult('purging sessions', () => retention.purgeSessions(query));
  }

  async purgeMemories(query: PurgeMemoriesQuery): Promise<number> {
    checkTime(query.before, 'before');
    checkBatch(query.limit);
    const retention = this.retention();
    return this.writeNowResult('purging memories', () => retention.purgeMemories(query));
  }

  async purgeArtifactVersions(query: PurgeArtifactsQuery): Promise<number> {
    checkKeepVersions(query.keepVersions);
    checkBatch(query.limit);
    const retention = this.retention();
    return this.writeNowResult('purging artifact versions', () => retention.purgeArtifactVersions(query));
  }

  async claimSweep(holder: string, ttlMs: number): Promise<boolean> {
    this.checkUsable();
    return this.sweepLock.claim(holder, ttlMs);
  }

  async releaseSweep(holder: string): Promise<void> {
    this.sweepLock.release(holder);
  }

  async ping(): Promise<void> {
    this.readNow('checking that the store answers', () => this.listStatement('SELECT 1').get());
  }

  /** Retention's statements, prepared on first use. */
  private retention(): SqliteRetention {
    this.ready();
    this.retentionStatements ??= prepareRetention(this.database, (sql) => this.listStatement(sql));
    return this.retentionStatements;
  }

  /** `writeNow` giving back what the write returns, as a promise (rejected rather than thrown). */
  private async writeNowResult<T>(what: string, commit: (statements: Statements) => T): Promise<T> {
    const statements = this.ready();
    let result: T | undefined;
    await this.writeNow(what, () => {
      result = commit(statements);
    });
    return result as T;
  }

  private ready(): Statements {
    this.checkUsable();
    if (this.statements === undefined) {
      try {
        migrateSqlite(this.database);
        this.statements = prepare(this.database);
      } catch (cause) {
        throw sqliteFailure(this.path, 'opening the store', (cause as { cause?: unknown }).cause ?? cause);
      }
    }
    return this.statements;
  }

  /**
   * Runs a small write of its own, durably, after the queue: what was written before it is on
   * disk first. A failure of the write itself (a constraint) leaves the store usable.
   */
  private async writeNow(what: string, commit: () => void): Promise<void> {
    await this.commits.drain();
    try {
      commit();
    } catch (cause) {
      throw sqliteFailure(this.path, what, cause);
    }
    await this.commits.committedHere();
  }

  /**
   * Runs a read after committing the queue (reads see every write made before them), and resolves
   * once what it read is on disk: nothing a read returns can be lost to a power loss afterwards.
   */
  private async read<T>(what: string, query: (statements: Statements) => T): Promise<T> {
    const statements = this.ready();
    await this.commits.drain();
    let result: T;
    try {
      result = query(statements);
    } catch (cause) {
      throw sqliteFailure(this.path, what, cause);
    }
    await this.commits.synced();
    return result;
  }

  /** Runs a read that need not wait for queued run writes (principals and tokens). */
  private readNow<T>(what: string, query: (statements: Statements) => T): T {
    const statements = this.ready();
    try {
      return query(statements);
    } catch (cause) {
      throw sqliteFailure(this.path, what, cause);
    }
  }

  private listStatement(sql: string): Database.Statement<unknown[], unknown> {
    let statement = this.listStatements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    return statement;
  }
}

function where(conditions: readonly string[]): string {
  return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
}

function prepare(database: Database.Database): Statements {
  const statements = {
    runsToDrive: database.prepare<[], { id: string; agent: string }>(
      `SELECT id, agent FROM runs WHERE status = 'running'
       UNION SELECT r.id, r.agent FROM parks p JOIN runs r ON r.id = p.run_id WHERE p.recorded = 0 AND r.status = 'parked'
       UNION SELECT r.id, r.agent FROM run_cancels c JOIN runs r ON r.id = c.run_id WHERE r.status = 'parked'`,
    ),
    unrecordedAnswers: database.prepare<
      [string],
      { id: string; decision: string; answered_by: string; answered_at: number }
    >(
      'SELECT id, decision, answered_by, answered_at FROM parks WHERE run_id = ? AND recorded = 0 ORDER BY answered_at, id',
    ),
    cancelOf: database.prepare<[string], { reason: string; requested_at: number }>(
      'SELECT reason, requested_at FROM run_cancels WHERE run_id = ?',
    ),
    requestCancel: database.prepare<[string, string, number]>(
      'INSERT INTO run_cancels (run_id, reason, requested_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING',
    ),
    markUnrecorded: database.prepare<[string]>('UPDATE parks SET recorded = 0 WHERE id = ?'),
    answerPark: database.prepare<[string, string, number, string], { run_id: string }>(
      `UPDATE parks SET status = 'answered', decision = ?, answered_by = ?, answered_at = ?
       WHERE id = ? AND status = 'open' RETURNING run_id`,
    ),
    parkState: database.prepare<[string], ParkState>('SELECT status, answered_at, answered_by FROM parks WHERE id = ?'),
    getRun: database.prepare<[string], RunColumns>('SELECT * FROM runs WHERE id = ?'),
    getPark: database.prepare<[string], ParkColumns>('SELECT * FROM parks WHERE id = ?'),
    countOpenParks: database.prepare<[], { kind: ParkKind; count: number }>(
      "SELECT kind, count(*) AS count FROM parks WHERE status = 'open' GROUP BY kind",
    ),
    lastSeq: database.prepare<[string], { seq: number | null }>('SELECT max(seq) AS seq FROM journal WHERE run_id = ?'),
    loadJournal: database.prepare<[string, number], RunRecordColumns>(
      'SELECT seq, record FROM journal WHERE run_id = ? AND seq > ? ORDER BY seq',
    ),
  };
  const sessions = prepareSessions(database);
  const writeStatements = prepareWriteStatements(database);
  const flush = database.transaction((ops: ReadonlyArray<string | number>) => runWriteOps(writeStatements, ops));
  const requestAnswer = database.transaction(
    (request: PendingAnswer & { readonly callHash: string }, decision: string): string => {
      const row = statements.getPark.get(request.parkId);
      if (row === undefined) throw new ParkNotFoundError(`no park has the id ${request.parkId}`);
      if (row.status !== 'open') throw parkNotOpenError(request.parkId, row);
      if (parkRowFrom(row).callHash !== request.callHash) {
        throw new StaleParkAnswerError(
          `park ${request.parkId} now holds another call than the one answered; look at it again`,
        );
      }
      statements.answerPark.get(decision, request.by, request.at, request.parkId);
      statements.markUnrecorded.run(request.parkId);
      return row.run_id;
    },
  );
  const answer = database.transaction((answer: ParkAnswerWrite, decision: string, write: SerializedWrite) => {
    const answered = statements.answerPark.get(decision, answer.by, answer.at, answer.parkId);
    if (answered === undefined) {
      const state = statements.parkState.get(answer.parkId);
      if (state === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
      throw parkNotOpenError(answer.parkId, state);
    }
    if (answered.run_id !== write.runId) {
      throw new StoreError(`park ${answer.parkId} belongs to run ${answered.run_id}, not to run ${write.runId}`);
    }
    runWriteOps(writeStatements, writeOps([write]));
  });
  const auth = {
    getPrincipal: database.prepare<[string], PrincipalColumns>('SELECT * FROM principals WHERE id = ?'),
    listPrincipals: database.prepare<[], PrincipalColumns>('SELECT * FROM principals ORDER BY name'),
    findTokenByHash: database.prepare<[string], TokenWithPrincipalColumns>(
      `SELECT t.id, t.principal_id, t.hash, t.created_at, t.revoked_at, t.expires_at,
         p.name AS principal_name, p.kind AS principal_kind, p.role AS principal_role,
         p.agents AS principal_agents, p.created_at AS principal_created_at
       FROM tokens t JOIN principals p ON p.id = t.principal_id WHERE t.hash = ?`,
    ),
    revokeToken: database.prepare<[number, string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?',
    ),
    listTokens: database.prepare<[], TokenColumns>('SELECT * FROM tokens ORDER BY created_at, id'),
    listTokensOf: database.prepare<[string], TokenColumns>(
      'SELECT * FROM tokens WHERE principal_id = ? ORDER BY created_at, id',
    ),
  };
  const principalNamed = database.prepare<[string], { id: string }>('SELECT id FROM principals WHERE name = ?');
  const upsertPrincipal = database.prepare<[string, string, string, string, string, number]>(
    `INSERT INTO principals (id, name, kind, role, agents, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, role = excluded.role,
       agents = excluded.agents, created_at = excluded.created_at`,
  );
  const insertToken = database.prepare<[string, string, string, number, number | null, number | null]>(
    'INSERT INTO tokens (id, principal_id, hash, created_at, revoked_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const putPrincipal = database.transaction((principal: PrincipalColumns) => {
    const named = principalNamed.get(principal.name);
    if (named !== undefined && named.id !== principal.id) {
      throw new InvalidInputError(`a principal named ${principal.name} exists`);
    }
    upsertPrincipal.run(
      principal.id,
      principal.name,
      principal.kind,
      principal.role,
      principal.agents,
      principal.created_at,
    );
  });
  const putToken = database.transaction((token: TokenColumns) => {
    if (auth.getPrincipal.get(token.principal_id) === undefined) {
      throw new PrincipalNotFoundError(`no principal has the id ${token.principal_id}`);
    }
    insertToken.run(token.id, token.principal_id, token.hash, token.created_at, token.revoked_at, token.expires_at);
  });
  const memories = prepareMemories(database);
  const artifacts = prepareArtifacts(database);
  const oauth = prepareOAuth(database);
  return {
    ...statements,
    flush,
    answer,
    requestAnswer,
    ...auth,
    putPrincipal,
    putToken,
    sessions,
    memories,
    artifacts,
    oauth,
  };
}

/**
 * Opens (creating it and its directory if missing) the SQLite store at `path`.
 *
 * @example
 * ```ts
 * const store = sqliteStore('data/wardrik.db', { synchronous: 'normal' });
 * await store.migrate();
 * ```
 */
export function sqliteStore(path: string, options?: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(path, options);
}
