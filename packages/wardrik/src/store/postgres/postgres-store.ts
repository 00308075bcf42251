import { randomUUID } from 'node:crypto';
import { type Artifact, type ArtifactInfo, WardrikError } from '@wardrik/core';
import type * as pg from 'pg';
import type { Principal, TokenInfo } from '../../auth/types.js';
import { InvalidInputError, LeaseLostError, ParkNotFoundError, StoreError } from '../../errors.js';
import type { ParkKind, StoredRecord } from '../../journal/records.js';
import type { ArtifactSave, ArtifactScopeId } from '../artifact-store.js';
import { type ParkColumns, parkNotOpenError, type SerializedWrite, serializeWrite } from '../columns.js';
import { tellCommit } from '../commit-stats.js';
import type { FoundMemory, MemoryFilter, MemoryQuery, StoredMemory } from '../memory-index.js';
import type { OAuthCredentialKey, OAuthCredentialKind, StoredOAuthCredential } from '../oauth-store.js';
import { principalColumns, tokenColumns } from '../principal-columns.js';
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
import {
  type Heartbeat,
  MAX_NOTE_BYTES,
  type NodeMessage,
  type OfferList,
  type Pulse,
  type WorkerOffer,
  type WorkerSignal,
} from '../worker-store.js';
import * as artifacts from './artifact-queries.js';
import * as auth from './auth-queries.js';
import { leaseLost, type SignalTarget, writeBatch } from './batch-write.js';
import {
  checkSchemaName,
  describeConfig,
  pgModule,
  poolConfig,
  secretsOf,
  sessionSetup,
  signalChannel,
} from './connection.js';
import { GroupCommit, type Outcomes } from './group-commit.js';
import * as leases from './lease-queries.js';
import * as memories from './memory-queries.js';
import { migratePostgres } from './migrations.js';
import * as oauth from './oauth-queries.js';
import { isConflict, isStatementError, isTransient, postgresFailure, scrub, type Target } from './postgres-errors.js';
import * as requestQueries from './request-queries.js';
import * as retention from './retention-queries.js';
import * as runs from './run-queries.js';
import * as sessions from './session-queries.js';
import { isRunSignal, Signals } from './signals.js';
import { checkText } from './text.js';
import * as workerQueries from './worker-queries.js';

/** Options of {@link postgresStore}. */
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function leaseKey(lease: Lease): string {
  return `${lease.runId}\u0000${lease.node}\u0000${lease.epoch}`;
}

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new StoreError(`ttlMs must be a positive number of ms, got ${String(ttlMs)}`);
  }
}

function checkTerms(terms: LeaseTerms): void {
  if (typeof terms.node !== 'string' || terms.node === '') throw new StoreError('a lease needs a node name');
  if (typeof terms.incarnation !== 'string' || terms.incarnation === '') {
    throw new StoreError('a lease needs the incarnation of its node');
  }
  if (!Number.isFinite(terms.leaseMs) || terms.leaseMs <= 0) {
    throw new StoreError(`leaseMs must be a positive number of ms, got ${String(terms.leaseMs)}`);
  }
}

/** At most this many lost leases are remembered (to refuse their later writes at once). */
const LOST_LEASES_KEPT = 10_000;

/**
 * The store for many Wardrik nodes sharing one PostgreSQL database, through a `pg` pool (and a
 * connection of its own for flushes).
 *
 * - **Group commit.** Writes are queued; the durable writes of every run made in the same turn of
 *   the event loop are committed together in one statement (one transaction, one WAL flush), and
 *   resolve after COMMIT. Non-durable writes resolve at once and ride with the next flush (or
 *   after `flushIntervalMs`). One flush is in flight at a time, on a connection of its own (not
 *   the pool's). Reads of run data first wait for every write made before them; principal and
 *   token reads never wait.
 * - **Leases and fencing.** Leases live in their own table and are judged by the database's clock
 *   (`now()`). Every write naming a lease is applied only if that lease is still the run's (node
 *   and epoch), checked with the lease row locked in the transaction that applies it; a write
 *   that fails the check is refused alone with `LeaseLostError`, the rest of its batch commits.
 *   A non-durable write refused that way (it was acknowledged already) makes every later write
 *   naming its lease reject at once, and the next durable write of the run is refused anyway.
 * - **Signals.** `requested` (an answer or cancel waits), `claimable` (a lease was released while
 *   the run needs driving) and `appended` (once per run per flush, with its last seq) are sent
 *   with NOTIFY inside the transaction that makes the change, so they arrive at commit, on every
 *   node listening (`onRunSignal`). An expired lease sends nothing: nodes poll `claimRuns`.
 * - **Failure (crash-only).** If a flush fails (the server is gone, a constraint), the writes it
 *   held are lost, acknowledged non-durable ones included, so the store fails: its `onFailure`
 *   listeners hear it once and every later call throws `StoreError`. The runtime stops, the
 *   process exits and restarts, and the runs continue from what is committed, on whichever node
 *   claims them. Reads and lease calls are not writes of runs: a dropped connection fails that call
 *   only (reads are tried again a few times first).
 *
 * Messages name the server by its URL with the password replaced by `***`.
 *
 * @example
 * ```ts
 * const store = postgresStore('postgres://wardrik:secret@db.internal:5432/wardrik', { schema: 'wardrik' });
 * await store.migrate();
 * const lease = await store.claimRun('run_1', { node: 'node-a', leaseMs: 5_000 });
 * if (lease) {
 *   const run: RunRow = {
 *     id: 'run_1', agent: 'support', principal: 'alice', status: 'running',
 *     createdAt: Date.now(), updatedAt: Date.now(), measures: {}, labels: [],
 *   };
 *   await store.write({ runId: 'run_1', run, records: [], lease }, { durable: true });
 * }
 * await store.close();
 * ```
 */
export class PostgresStore implements Store {
  /** The server's URL as messages show it: without its password. */
  readonly location: string;
  /** The schema of the store's tables, if it has one of its own. */
  readonly schema: string | undefined;
  readonly #target: Target;
  readonly #pool: pg.Pool;
  readonly #config: pg.PoolConfig;
  /** The connection flushes use (one is in flight at a time): opened on the first flush, again after it breaks. */
  #flusher: Promise<pg.Client> | undefined;
  readonly #setup: string;
  readonly #readRetries: number;
  readonly #signalTarget: SignalTarget;
  readonly #signals: Signals;
  readonly #group: GroupCommit<SerializedWrite>;
  /** Connections whose session setup (search path, synchronous_commit) has run. */
  readonly #prepared = new WeakSet<pg.PoolClient>();
  readonly #lostLeases = new Set<string>();
  readonly #failureListeners = new Set<(error: StoreError) => void>();
  readonly #commitListeners = new Set<(commit: CommitStats) => void>();
  #ready: Promise<void> | undefined;
  #failure: StoreError | undefined;
  #closed = false;
  #flushes = 0;
  #recordsWritten = 0;
  #writesRefused = 0;
  /** How common words are among memories, as the server's statistics say (read once a minute). */
  readonly #frequencies = new memories.MemoryFrequencies();

  constructor(connection: string | pg.PoolConfig, options: PostgresStoreOptions = {}) {
    const config = poolConfig(connection);
    this.#target = { location: describeConfig(config), secrets: secretsOf(config) };
    this.location = this.#target.location;
    this.schema = options.schema === undefined ? undefined : checkSchemaName(options.schema);
    const synchronousCommit = options.synchronousCommit ?? true;
    if (typeof synchronousCommit !== 'boolean') {
      throw new StoreError(`synchronousCommit must be true or false, got ${String(synchronousCommit)}`);
    }
    this.#setup = sessionSetup(this.schema, synchronousCommit);
    this.#readRetries = options.readRetries ?? 3;
    this.#config = config;
    this.#pool = new (pgModule().Pool)(config);
    // An idle connection that breaks (a server restart) is dropped by the pool; the next call opens another.
    this.#pool.on('error', () => {});
    // A connection that breaks while checked out emits 'error' besides failing its query: without a
    // listener that would crash the process. The query's rejection is what the store acts on.
    this.#pool.on('connect', (client) => client.on('error', () => {}));
    this.#signalTarget = { channel: signalChannel(this.schema), source: randomUUID() };
    this.#signals = new Signals({ ...this.#signalTarget, config, setup: this.#setup });
    this.#group = new GroupCommit<SerializedWrite>({
      commit: (writes) => this.#commitBatch(writes),
      flushIntervalMs: options.flushIntervalMs ?? 20,
      maxPendingRecords: options.maxPendingRecords ?? 5000,
      failed: (cause, lost) => this.#flushFailed(cause, lost),
      refusedAfterAcknowledged: (write) => {
        if (write.lease) this.#rememberLost(write.lease);
      },
    });
  }

  /** Creates or upgrades the schema (see `migratePostgres`). The other methods do it on first use. */
  async migrate(): Promise<void> {
    this.#checkUsable();
    await this.#whenReady();
  }

  write(write: RunWrite, options: { durable: boolean }): Promise<void> {
    let serialized: SerializedWrite;
    try {
      this.#checkUsable();
      serialized = serializeWrite(write);
      checkText(serialized);
      if (serialized.lease && this.#lostLeases.has(leaseKey(serialized.lease))) {
        const lease = serialized.lease;
        this.#writesRefused += 1;
        throw new LeaseLostError(
          `run ${lease.runId}: node ${lease.node} no longer holds it (a write of its lease of epoch ${lease.epoch} was refused already)`,
        );
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#group.enqueue(serialized, serialized.records.length, options.durable);
  }

  async answerPark(answer: ParkAnswerWrite): Promise<void> {
    this.#checkUsable();
    const write = serializeWrite(answer.write);
    checkText(write);
    await this.#whenReady();
    await this.#barrier();
    const client = await this.#connect(`answering park ${answer.parkId}`);
    let broken: unknown;
    let committing = false;
    const began = performance.now();
    try {
      await client.query('BEGIN');
      if (write.lease) await this.#checkLease(client, write);
      const answered = await client.query<{ run_id: string }>({
        name: 'wardrik_answer_park_v1',
        text: `UPDATE parks SET status = 'answered', decision = $1, answered_by = $2, answered_at = $3
               WHERE id = $4 AND status = 'open' RETURNING run_id`,
        values: [JSON.stringify(answer.decision), answer.by, answer.at, answer.parkId],
      });
      const runId = answered.rows[0]?.run_id;
      if (runId === undefined) {
        const { rows } = await client.query<ParkColumns>('SELECT * FROM parks WHERE id = $1', [answer.parkId]);
        if (rows[0] === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
        throw parkNotOpenError(answer.parkId, rows[0]);
      }
      if (runId !== write.runId) {
        throw new StoreError(`park ${answer.parkId} belongs to run ${runId}, not to run ${write.runId}`);
      }
      const [refused] = await writeBatch(client, [write], this.#signalTarget);
      if (refused) throw refused;
      committing = true;
      await client.query('COMMIT');
    } catch (error) {
      if (!committing || isStatementError(error)) {
        // Nothing is committed: the server rolls an unfinished transaction back, if the connection broke too.
        if (isStatementError(error) || WardrikError.isInstance(error)) {
          await client.query('ROLLBACK').catch((rollback: unknown) => {
            broken = rollback;
          });
        } else broken = error;
        if (LeaseLostError.isInstance(error)) this.#writesRefused += 1;
        throw postgresFailure(this.#target, `answering park ${answer.parkId}`, error);
      }
      // The connection failed during COMMIT: the answer may or may not be committed, and this node can't know.
      broken = error;
      const failure = postgresFailure(
        this.#target,
        `answering park ${answer.parkId} (whether it was committed is unknown, so the store fails)`,
        error,
      );
      this.#fail(failure as StoreError);
      throw failure;
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
    this.#flushes += 1;
    this.#recordsWritten += write.records.length;
    // Journaled outside the group commit, and told to commit listeners all the same.
    tellCommit(this.#commitListeners, performance.now() - began, [write]);
    this.#emitAppended([write]);
  }

  async claimRun(runId: string, terms: LeaseTerms): Promise<Lease | undefined> {
    checkTerms(terms);
    return this.#call(`claiming run ${runId}`, (client) => leases.claimRun(client, runId, terms), { retry: true });
  }

  async claimRuns(terms: LeaseTerms, limit: number, options: ClaimOptions = {}): Promise<Lease[]> {
    checkTerms(terms);
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new InvalidInputError(`limit must be a non-negative integer, got ${String(limit)}`);
    }
    if (limit === 0) {
      this.#checkUsable();
      return [];
    }
    // Not tried again after a dropped connection: the runs it took may be held without being known.
    return this.#call('claiming runs', (client) => leases.claimRuns(client, terms, limit, options), { retry: false });
  }

  async renewLeases(terms: LeaseTerms): Promise<ReadonlySet<string>> {
    checkTerms(terms);
    return this.#call(`renewing the leases of ${terms.node}`, (client) => leases.renewLeases(client, terms), {
      retry: true,
    });
  }

  async leaseHolderState(node: string, incarnation: string): Promise<LeaseHolderState> {
    return this.#call(
      `asking whether ${node} holds leases`,
      (client) => leases.holderState(client, node, incarnation),
      {
        retry: true,
      },
    );
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.#checkUsable();
    await this.#barrier(); // what this node queued for the run lands while it still holds it
    const { claimable } = await this.#call(
      `releasing the lease of run ${lease.runId}`,
      (client) => leases.releaseLease(client, lease, this.#signalTarget),
      { retry: true },
    );
    if (claimable) this.#signals.emit({ type: 'claimable', runId: lease.runId });
  }

  async requestAnswer(answer: PendingAnswer & { readonly callHash: string }): Promise<void> {
    this.#checkUsable();
    await this.#barrier();
    const runId = await this.#call(
      `answering park ${answer.parkId}`,
      (client) => requestQueries.requestAnswer(client, answer, this.#signalTarget),
      { retry: false },
    );
    this.#signals.emit({ type: 'requested', runId });
  }

  async requestCancel(runId: string, reason: string, at: number): Promise<void> {
    this.#checkUsable();
    await this.#barrier();
    await this.#call(
      `asking run ${runId} to cancel`,
      (client) => requestQueries.requestCancel(client, runId, reason, at, this.#signalTarget),
      { retry: false },
    );
    this.#signals.emit({ type: 'requested', runId });
  }

  async requests(runId: string): Promise<RunRequests> {
    return this.#read(`reading the requests of run ${runId}`, (client) => runs.requests(client, runId));
  }

  onRunSignal(listener: (signal: RunSignal) => void): () => void {
    return this.#signals.on((signal) => {
      if (isRunSignal(signal)) listener(signal);
    });
  }

  async beat(heartbeat: Heartbeat): Promise<Pulse> {
    checkTtl(heartbeat.ttlMs);
    return this.#call(
      `renewing the liveness of node ${heartbeat.node.name}`,
      (client) => workerQueries.beat(client, heartbeat),
      { retry: true },
    );
  }

  async leave(nodeId: string): Promise<void> {
    await this.#call(`removing node ${nodeId}`, (client) => workerQueries.leave(client, nodeId, this.#signalTarget), {
      retry: true,
    });
    this.#signals.emit({ type: 'workers-changed', from: nodeId });
  }

  async putOffer(offer: WorkerOffer): Promise<number> {
    const connectedAt = await this.#call(
      `writing the offer of worker ${offer.workerId}`,
      (client) => workerQueries.putOffer(client, offer, this.#signalTarget),
      { retry: true },
    );
    this.#signals.emit({ type: 'workers-changed', from: offer.node.id });
    return connectedAt;
  }

  async removeOffer(workerId: string): Promise<void> {
    await this.#call(
      `removing the offer of worker ${workerId}`,
      (client) => workerQueries.removeOffer(client, workerId, this.#signalTarget),
      { retry: true },
    );
  }

  async listOffers(): Promise<OfferList> {
    return this.#call('listing the workers', (client) => workerQueries.listOffers(client), { retry: true });
  }

  async post(to: string, message: NodeMessage): Promise<boolean> {
    const posted = await this.#call(
      `leaving a message for node ${to}`,
      (client) => workerQueries.post(client, to, message, this.#signalTarget),
      { retry: false },
    );
    if (posted) this.#signals.emit({ type: 'mail', to });
    return posted;
  }

  async takeMail(nodeId: string): Promise<NodeMessage[]> {
    return this.#call(`taking the messages of node ${nodeId}`, (client) => workerQueries.takeMail(client, nodeId), {
      retry: false,
    });
  }

  async withdraw(messageId: string): Promise<boolean> {
    return this.#call(`withdrawing message ${messageId}`, (client) => workerQueries.withdraw(client, messageId), {
      retry: true,
    });
  }

  async note(to: string, body: string): Promise<void> {
    const bytes = Buffer.byteLength(body);
    if (bytes > MAX_NOTE_BYTES) throw new StoreError(`a note may hold at most ${MAX_NOTE_BYTES} bytes, got ${bytes}`);
    await this.#call(
      `sending a note to node ${to}`,
      (client) => workerQueries.note(client, to, body, this.#signalTarget),
      { retry: false },
    );
    this.#signals.emit({ type: 'note', to, body });
  }

  onWorkerSignal(listener: (signal: WorkerSignal) => void): () => void {
    return this.#signals.on((signal) => {
      if (!isRunSignal(signal)) listener(signal);
    });
  }

  /**
   * Resolves once this store hears other nodes' signals: `onRunSignal` starts listening on a
   * connection of its own, and this waits for its LISTEN (at once if nobody listens).
   */
  listening(): Promise<void> {
    return this.#signals.listening();
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    return this.#read(`reading run ${runId}`, (client) => runs.getRun(client, runId));
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    runs.listRunsQuery(filter); // checks the limit before anything else
    return this.#read('listing runs', (client) => runs.listRuns(client, filter));
  }

  async loadJournal(runId: string, afterSeq?: number): Promise<StoredRecord[]> {
    return this.#read(`reading the journal of run ${runId}`, (client) => runs.loadJournal(client, runId, afterSeq));
  }

  async lastSeq(runId: string): Promise<number> {
    return this.#read(`reading the journal of run ${runId}`, (client) => runs.lastSeq(client, runId));
  }

  async getPark(parkId: string): Promise<ParkRow | undefined> {
    return this.#read(`reading park ${parkId}`, (client) => runs.getPark(client, parkId));
  }

  async countOpenParks(): Promise<Partial<Record<ParkKind, number>>> {
    return this.#read('counting open parks', (client) => runs.countOpenParks(client));
  }

  async listParks(filter: ParkFilter = {}): Promise<ParkRow[]> {
    runs.listParksQuery(filter);
    return this.#read('listing parks', (client) => runs.listParks(client, filter));
  }

  async putAllowance(allowance: Allowance): Promise<void> {
    await this.#call(
      `writing the allowance of ${allowance.tool} for ${allowance.agent}`,
      (client) => runs.putAllowance(client, allowance),
      { retry: false },
    );
  }

  async listAllowances(): Promise<Allowance[]> {
    return this.#call('listing standing decisions', (client) => runs.listAllowances(client), { retry: true });
  }

  async putPrincipal(principal: Principal): Promise<void> {
    const columns = principalColumns(principal);
    await this.#call(`writing principal ${columns.id}`, (client) => auth.putPrincipal(client, columns), {
      retry: false,
    });
  }

  async getPrincipal(id: string): Promise<Principal | undefined> {
    return this.#call(`reading principal ${id}`, (client) => auth.getPrincipal(client, id), { retry: true });
  }

  async listPrincipals(): Promise<Principal[]> {
    return this.#call('listing principals', (client) => auth.listPrincipals(client), { retry: true });
  }

  async putToken(token: TokenInfo & { readonly hash: string }): Promise<void> {
    const columns = tokenColumns(token);
    await this.#call(`writing token ${columns.id}`, (client) => auth.putToken(client, columns), { retry: false });
  }

  async findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined> {
    return this.#call('looking a token up', (client) => auth.findTokenByHash(client, hash), { retry: true });
  }

  async revokeToken(id: string, at: number): Promise<boolean> {
    if (!Number.isSafeInteger(at)) throw new StoreError(`token ${id}: revokedAt must be an integer time in ms`);
    return this.#call(`revoking token ${id}`, (client) => auth.revokeToken(client, id, at), { retry: true });
  }

  async listTokens(principalId?: string): Promise<TokenInfo[]> {
    return this.#call('listing tokens', (client) => auth.listTokens(client, principalId), { retry: true });
  }

  async getOAuthCredential(key: OAuthCredentialKey): Promise<StoredOAuthCredential | undefined> {
    return this.#call(
      `reading the OAuth ${key.kind} of ${key.server}`,
      (client) => oauth.getOAuthCredential(client, key),
      {
        retry: true,
      },
    );
  }

  async putOAuthCredential(credential: StoredOAuthCredential): Promise<void> {
    if (!Number.isSafeInteger(credential.updatedAt)) {
      throw new StoreError(`OAuth ${credential.kind} of ${credential.server}: updatedAt must be an integer time in ms`);
    }
    // Replacing a row with the same value is safe to repeat.
    await this.#call(
      `writing the OAuth ${credential.kind} of ${credential.server}`,
      (client) => oauth.putOAuthCredential(client, credential),
      { retry: true },
    );
  }

  async deleteOAuthCredentials(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): Promise<number> {
    return this.#call(
      `deleting OAuth credentials of ${filter.server}`,
      (client) => oauth.deleteOAuthCredentials(client, filter),
      { retry: true },
    );
  }

  async createSession(session: SessionRow): Promise<boolean> {
    return this.#call(`creating session ${session.id}`, (client) => sessions.createSession(client, session), {
      retry: false,
    });
  }

  async getSession(id: string): Promise<SessionRow | undefined> {
    return this.#call(`reading session ${id}`, (client) => sessions.getSession(client, id), { retry: true });
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    return this.#call('listing sessions', (client) => sessions.listSessions(client, filter), { retry: true });
  }

  async deleteSession(id: string): Promise<boolean> {
    return this.#call(`deleting session ${id}`, (client) => sessions.deleteSession(client, id), { retry: false });
  }

  async claimTurn(sessionId: string, runId: string, at: number, startingMs: number): Promise<TurnClaim> {
    return this.#call(
      `taking a turn in session ${sessionId}`,
      (client) => sessions.claimTurn(client, sessionId, runId, at, startingMs),
      { retry: false },
    );
  }

  async sessionRuns(sessionId: string): Promise<string[]> {
    return this.#read(`listing the runs of session ${sessionId}`, (client) => sessions.sessionRuns(client, sessionId));
  }

  async loadState(scopes: readonly StateScopeId[]): Promise<StoredStateValue[]> {
    return this.#read('reading state', (client) => sessions.loadState(client, scopes));
  }

  async editState(edit: StateEdit): Promise<void> {
    await this.#call('editing state', (client) => sessions.editState(client, edit), { retry: false });
  }

  async listStateEdits(scope: StateScopeId): Promise<StoredStateEdit[]> {
    return this.#call(`listing the edits of ${scope}`, (client) => sessions.listStateEdits(client, scope), {
      retry: true,
    });
  }

  async addMemories(list: readonly StoredMemory[]): Promise<number> {
    return this.#call('adding memories', (client) => memories.addMemories(client, list), { retry: true });
  }

  async knownMemories(ids: readonly string[]): Promise<string[]> {
    return this.#call('reading memories', (client) => memories.knownMemories(client, ids), { retry: true });
  }

  async searchMemories(query: MemoryQuery): Promise<FoundMemory[]> {
    return this.#call('searching memories', (client) => memories.searchMemories(client, query, this.#frequencies), {
      retry: true,
    });
  }

  async memoryEmbeddings(app: string, principal: string): Promise<{ id: string; embedding: Float32Array }[]> {
    return this.#call('reading embeddings', (client) => memories.memoryEmbeddings(client, app, principal), {
      retry: true,
    });
  }

  async getMemories(ids: readonly string[]): Promise<Omit<StoredMemory, 'embedding'>[]> {
    return this.#call('reading memories', (client) => memories.getMemories(client, ids), { retry: true });
  }

  async deleteMemories(filter: MemoryFilter): Promise<number> {
    return this.#call('deleting memories', (client) => memories.deleteMemories(client, filter), { retry: true });
  }

  async saveArtifact(save: ArtifactSave): Promise<ArtifactInfo> {
    // Not tried again: a save whose commit was lost with the connection may have been stored (one with a key is found again).
    return this.#call(`saving artifact ${save.name}`, (client) => artifacts.saveArtifact(client, save), {
      retry: save.key !== undefined,
    });
  }

  async loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Promise<Artifact | undefined> {
    return this.#call(`loading artifact ${name}`, (client) => artifacts.loadArtifact(client, scope, name, version), {
      retry: true,
    });
  }

  async listArtifacts(scopes: readonly ArtifactScopeId[]): Promise<ArtifactInfo[]> {
    return this.#call('listing artifacts', (client) => artifacts.listArtifacts(client, scopes), { retry: true });
  }

  async artifactVersions(scope: ArtifactScopeId, name: string): Promise<ArtifactInfo[]> {
    return this.#call(
      `listing the versions of artifact ${name}`,
      (client) => artifacts.artifactVersions(client, scope, name),
      { retry: true },
    );
  }

  async labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly string[]): Promise<void> {
    await this.#call(
      `labelling artifact ${name}`,
      (client) => artifacts.labelArtifact(client, scope, name, version, labels),
      { retry: true },
    );
  }

  async deleteArtifact(scope: ArtifactScopeId, name: string): Promise<number> {
    return this.#call(`deleting artifact ${name}`, (client) => artifacts.deleteArtifact(client, scope, name), {
      retry: true,
    });
  }

  async purgeRuns(query: PurgeRunsQuery): Promise<PurgedRuns> {
    checkPurgeRunsQuery(query);
    // Reads of run data wait for what this node queued: a run ending now is on disk before it is judged.
    await this.#barrier();
    return this.#call('purging runs', (client) => retention.purgeRuns(client, query), { retry: true });
  }

  async purgeSessions(query: PurgeSessionsQuery): Promise<number> {
    checkTime(query.idleBefore, 'idleBefore');
    checkBatch(query.limit);
    return this.#call('purging sessions', (client) => retention.purgeSessions(client, query), { retry: true });
  }

  async purgeMemories(query: PurgeMemoriesQuery): Promise<number> {
    checkTime(query.before, 'before');
    checkBatch(query.limit);
    return this.#call('purging memories', (client) => retention.purgeMemories(client, query), { retry: true });
  }

  async purgeArtifactVersions(query: PurgeArtifactsQuery): Promise<number> {
    checkKeepVersions(query.keepVersions);
    checkBatch(query.limit);
    return this.#call('purging artifact versions', (client) => retention.purgeArtifactVersions(client, query), {
      retry: true,
    });
  }

  async claimSweep(holder: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    return this.#call('claiming the retention sweep', (client) => retention.claimSweep(client, holder, ttlMs), {
      retry: true,
    });
  }

  async releaseSweep(holder: string): Promise<void> {
    await this.#call('releasing the retention sweep', (client) => retention.releaseSweep(client, holder), {
      retry: true,
    });
  }

  async ping(): Promise<void> {
    await this.#call('checking that the store answers', (client) => client.query('SELECT 1'), { retry: false });
  }

  /** Flushes what is queued, stops listening and closes the pool. Calling it again does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let failure: unknown;
    if (this.#failure === undefined) {
      try {
        await this.#group.barrier();
      } catch (error) {
        failure = error;
      }
    }
    this.#group.stop();
    await this.#signals.close();
    const flusher = this.#flusher;
    this.#flusher = undefined;
    await flusher?.then((client) => client.end()).catch(() => {});
    await this.#pool.end().catch(() => {});
    if (failure !== undefined) throw failure;
  }

  /** How many write transactions committed, the journal records they held, and the writes refused for a lost lease. */
  stats(): PostgresStoreStats {
    return { flushes: this.#flushes, recordsWritten: this.#recordsWritten, writesRefused: this.#writesRefused };
  }

  onFailure(listener: (error: StoreError) => void): () => void {
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  onCommit(listener: (commit: CommitStats) => void): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  /** Nothing to lock: nodes share this store, and claim its runs one by one (leases). */
  async lockForRuntime(): Promise<void> {
    this.#checkUsable();
  }

  #checkUsable(): void {
    if (this.#closed) throw new StoreError(`the store ${this.location} is closed`);
    if (this.#failure !== undefined) {
      throw new StoreError(`the store ${this.location} failed and must be reopened: ${this.#failure.message}`, {
        cause: this.#failure,
      });
    }
  }

  /** The store can't be trusted any more: keep why, refuse every later call, tell the listeners once. */
  #fail(error: StoreError): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    for (const listener of [...this.#failureListeners]) {
      try {
        listener(error);
      } catch {
        // One listener's failure must not keep the others from hearing.
      }
    }
  }

  #flushFailed(cause: unknown, lost: { writes: number; records: number }): StoreError {
    const detail = scrub(cause instanceof Error ? cause.message : String(cause), this.#target.secrets);
    const error = new StoreError(
      `writing ${lost.writes} queued writes (${lost.records} journal records) to PostgreSQL ${this.location} ` +
        `failed, so they are lost, including any already acknowledged as non-durable: ${detail}`,
      { cause },
    );
    this.#fail(error);
    return error;
  }

  #rememberLost(lease: Lease): void {
    this.#lostLeases.add(leaseKey(lease));
    if (this.#lostLeases.size > LOST_LEASES_KEPT) {
      const oldest = this.#lostLeases.values().next().value;
      if (oldest !== undefined) this.#lostLeases.delete(oldest);
    }
  }

  /** Migrates once per store (again after a failed try), then opens the flush connection. */
  #whenReady(): Promise<void> {
    this.#ready ??= this.#call('migrating the schema', (client) => migratePostgres(client, this.#migrateOptions()), {
      retry: true,
      internal: true,
    }).then(
      () => {
        // The flush connection opens now, so that the first flush does not wait for it.
        if (!this.#closed) void this.#flushConnection();
      },
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  #migrateOptions() {
    return this.schema === undefined ? { location: this.location } : { location: this.location, schema: this.schema };
  }

  /** Waits for every write queued so far to be committed; throws the store's failure if a flush failed. */
  async #barrier(): Promise<void> {
    try {
      await this.#group.barrier();
    } catch {
      this.#checkUsable();
    }
  }

  /** A pooled connection with its session set up; a failure to connect is tried again a few times. */
  async #connect(what: string): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt += 1) {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.#pool.connect();
        if (!this.#prepared.has(client)) {
          await client.query(this.#setup);
          this.#prepared.add(client);
        }
        return client;
      } catch (cause) {
        client?.release(cause instanceof Error ? cause : true);
        if (attempt >= 2 || !isTransient(cause) || this.#closed) {
          throw postgresFailure(this.#target, what, cause);
        }
        await sleep(100 * 3 ** attempt);
      }
    }
  }

  /**
   * Runs `query` on a pooled connection (after migrating). With `retry`, a dropped connection or a
   * restart is tried again a few times: for calls that may safely run twice. `internal`: the
   * store's own work (migrating, for a flush that may run while closing), neither checked nor migrated first.
   */
  async #call<T>(
    what: string,
    query: (client: pg.PoolClient) => Promise<T>,
    options: { retry: boolean; internal?: boolean },
  ): Promise<T> {
    if (!options.internal) {
      this.#checkUsable();
      await this.#whenReady();
    }
    const tries = options.retry ? this.#readRetries + 1 : 1;
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.#connect(what);
      let broken: Error | undefined;
      try {
        return await query(client);
      } catch (cause) {
        if (!isStatementError(cause) && !WardrikError.isInstance(cause)) broken = cause as Error;
        if (attempt >= tries || !isTransient(cause) || this.#closed) throw postgresFailure(this.#target, what, cause);
      } finally {
        client.release(broken);
      }
      await sleep(50 * 4 ** (attempt - 1));
    }
  }

  /** A read of run data: after every write made before it is committed. */
  async #read<T>(what: string, query: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.#checkUsable();
    await this.#whenReady();
    await this.#barrier();
    return this.#call(what, query, { retry: true });
  }

  /** Throws `LeaseLostError` unless the write's lease is the run's lease; locks the lease row until the transaction ends. */
  async #checkLease(client: pg.PoolClient, write: SerializedWrite): Promise<void> {
    const lease = write.lease;
    if (lease === undefined) return;
    const { rows } = await client.query<{ node: string | null; epoch: number }>(
      'SELECT node, epoch FROM leases WHERE run_id = $1 FOR SHARE',
      [lease.runId],
    );
    const current = rows[0];
    if (current?.node === lease.node && current.epoch === lease.epoch) return;
    throw leaseLost(write, current);
  }

  /**
   * The flush connection, set up (search path, synchronous_commit); opened if there is none, a
   * failure to connect tried again a few times. A connection that breaks is forgotten, so that the
   * next flush opens another.
   */
  #flushConnection(): Promise<pg.Client> {
    if (this.#flusher === undefined) {
      const opening = this.#openFlusher();
      this.#flusher = opening;
      opening.catch(() => {
        if (this.#flusher === opening) this.#flusher = undefined;
      });
    }
    return this.#flusher;
  }

  async #openFlusher(): Promise<pg.Client> {
    for (let attempt = 0; ; attempt += 1) {
      const client = new (pgModule().Client)(this.#config);
      // Without a listener an 'error' event would crash the process; the query in flight fails too.
      client.on('error', () => this.#forgetFlusher(client));
      client.on('end', () => this.#forgetFlusher(client));
      try {
        await client.connect();
        await client.query(this.#setup);
        return client;
      } catch (cause) {
        await client.end().catch(() => {});
        if (attempt >= 2 || !isTransient(cause) || this.#closed) {
          throw postgresFailure(this.#target, 'flushing queued writes', cause);
        }
        await sleep(100 * 3 ** attempt);
      }
    }
  }

  /** Forgets the flush connection if it is `client` (it broke or ended), and closes it. */
  #forgetFlusher(client: pg.Client): void {
    const flusher = this.#flusher;
    if (flusher === undefined) return;
    void flusher.then(
      (current) => {
        if (current !== client || this.#flusher !== flusher) return;
        this.#flusher = undefined;
        client.end().catch(() => {});
      },
      () => {},
    );
  }

  /** One group commit: the batch in one statement on the flush connection, tried again after a collision. */
  async #commitBatch(writes: readonly SerializedWrite[]): Promise<Outcomes> {
    await this.#whenReady();
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.#flushConnection();
      const began = this.#commitListeners.size > 0 ? performance.now() : 0;
      try {
        const outcomes = await writeBatch(client, writes, this.#signalTarget);
        this.#flushes += 1;
        const applied = writes.filter((_, index) => outcomes[index] === undefined);
        // Only what was journaled: a write refused (its lease lost) added no record.
        if (began !== 0) tellCommit(this.#commitListeners, performance.now() - began, applied);
        this.#writesRefused += writes.length - applied.length;
        for (const write of applied) this.#recordsWritten += write.records.length;
        this.#emitAppended(applied);
        return outcomes;
      } catch (cause) {
        if (!isStatementError(cause)) this.#forgetFlusher(client);
        // A deadlock or serialization failure rolled the statement back whole: run it again.
        if (!isConflict(cause) || attempt >= 3) throw cause;
      }
    }
  }

  /** Tells this store's listeners of each run's last appended seq (other nodes hear the NOTIFY). */
  #emitAppended(writes: readonly SerializedWrite[]): void {
    if (!this.#signals.listened) return;
    const last = new Map<string, number>();
    for (const write of writes) {
      for (const record of write.records)
        last.set(write.runId, Math.max(record.seq, last.get(write.runId) ?? record.seq));
    }
    for (const [runId, seq] of last) this.#signals.emit({ type: 'appended', runId, seq });
  }
}

/**
 * Opens a PostgreSQL store on a URL or a `pg` pool configuration. Nothing connects until the first
 * call; `migrate()` creates or upgrades the schema and throws a `StoreError` naming the URL
 * (without its password) if the server cannot be reached.
 *
 * @example
 * ```ts
 * const store = postgresStore(process.env.WARDRIK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/wardrik', {
 *   schema: 'wardrik',
 * });
 * await store.migrate();
 * ```
 */
export function postgresStore(connection: string | pg.PoolConfig, options?: PostgresStoreOptions): PostgresStore {
  return new PostgresStore(connection, options);
}
