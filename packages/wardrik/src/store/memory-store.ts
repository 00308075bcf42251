import type { Artifact, ArtifactInfo } from '@wardrik/core';
import type { Principal, TokenInfo } from '../auth/types.js';
import {
  InvalidInputError,
  ParkNotFoundError,
  PrincipalNotFoundError,
  RunNotFoundError,
  StaleParkAnswerError,
  StoreError,
} from '../errors.js';
import type { ParkKind, StoredRecord } from '../journal/records.js';
import type { ArtifactSave, ArtifactScopeId } from './artifact-store.js';
import {
  checkLimit,
  type ParkColumns,
  parkNotOpenError,
  parkRowFrom,
  type RecordColumns,
  type RunColumns,
  runRowFrom,
  type SerializedWrite,
  type StateColumns,
  serializeWrite,
  storedRecordFrom,
} from './columns.js';
import type { FoundMemory, MemoryFilter, MemoryQuery, StoredMemory } from './memory-index.js';
import type { OAuthCredentialKey, OAuthCredentialKind, StoredOAuthCredential } from './oauth-store.js';
import {
  compareTokens,
  type PrincipalColumns,
  principalColumns,
  principalFrom,
  type TokenColumns,
  tokenColumns,
  tokenInfoFrom,
} from './principal-columns.js';
import { ProcessArtifacts } from './process-artifacts.js';
import { ProcessLeases } from './process-leases.js';
import { ProcessMemories } from './process-memories.js';
import { ProcessSessionStore } from './process-session-store.js';
import { ProcessSweepLock } from './process-sweep-lock.js';
import { ProcessWorkerStore } from './process-worker-store.js';
import {
  artifactScopeApp,
  checkBatch,
  checkKeepVersions,
  checkPurgeRunsQuery,
  checkTime,
  coversAgent,
  type PurgeArtifactsQuery,
  type PurgedRuns,
  type PurgeMemoriesQuery,
  type PurgeRunsQuery,
  type PurgeSessionsQuery,
} from './retention-store.js';
import type {
  ScopedStateWrite,
  SessionFilter,
  SessionRow,
  StateEdit,
  StateScopeId,
  StoredStateEdit,
  StoredStateValue,
  TurnClaim,
} from './session-store.js';
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
  RunStatus,
  RunWrite,
  Store,
} from './store.js';
import type { Heartbeat, NodeMessage, OfferList, Pulse, WorkerOffer, WorkerSignal } from './worker-store.js';

/** The index of the first entry (entries sorted by seq) whose seq is above `seq`, or at least `seq` if `inclusive`. */
function firstFrom(entries: readonly RecordColumns[], seq: number, inclusive: boolean): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const entrySeq = entries[middle]!.seq;
    if (entrySeq < seq || (!inclusive && entrySeq === seq)) low = middle + 1;
    else high = middle;
  }
  return low;
}

function compareRunsNewestFirst(left: RunColumns, right: RunColumns): number {
  if (left.created_at !== right.created_at) return right.created_at - left.created_at;
  return left.id < right.id ? 1 : left.id > right.id ? -1 : 0;
}

function compareParksOldestFirst(left: ParkColumns, right: ParkColumns): number {
  if (left.created_at !== right.created_at) return left.created_at - right.created_at;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/**
 * A store that keeps everything in memory, for tests and benchmarks. Same semantics as the
 * SQLite store (every write is applied at once, so durable and non-durable are alike), nothing on
 * disk. What it stores is kept as JSON, so neither the objects written nor the objects read can
 * change what it holds. A write that conflicts with what is stored (a journal seq or a park id
 * used twice) fails the store, as a failed flush fails the SQLite store.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * const record: JournalRecord = { type: 'park-answered', v: 1, at: 0, parkId: 'p1', decision: { type: 'retry' }, by: 'bob' };
 * await store.write({ runId: 'r1', records: [{ runId: 'r1', seq: 1, record }] }, { durable: true });
 * await store.loadJournal('r1'); // [{ runId: 'r1', seq: 1, record }]
 * ```
 */
export class MemoryStore implements Store {
  private readonly runs = new Map<string, RunColumns>();
  private readonly journals = new Map<string, RecordColumns[]>();
  private readonly parks = new Map<string, ParkColumns>();
  private readonly principals = new Map<string, PrincipalColumns>();
  private readonly tokens = new Map<string, TokenColumns>();
  /** Token ids by hash. */
  private readonly tokenHashes = new Map<string, string>();
  private failure: StoreError | undefined;
  private readonly failureListeners = new Set<(error: StoreError) => void>();
  private closed = false;
  private readonly leases: ProcessLeases;
  /** Answers sent while another node held the run, by run, waiting for its holder to journal them. */
  private readonly pendingAnswers = new Map<string, PendingAnswer[]>();
  private readonly pendingCancels = new Map<string, { reason: string; at: number }>();
  /** The nodes' worker registry and mail (several runtimes sharing this store are several nodes). */
  private readonly workerStore: ProcessWorkerStore;
  private readonly sessionStore: ProcessSessionStore;
  private readonly memories = new ProcessMemories({ check: () => this.checkUsable() });
  private readonly artifacts = new ProcessArtifacts({ check: () => this.checkUsable() });
  private readonly sweepLock: ProcessSweepLock;

  /**
   * @param options.now the clock leases and node liveness are judged by (ms). Several runtimes
   *   (nodes) may share one memory store: it keeps leases, requests, signals, the worker registry
   *   and the nodes' mail as a store shared by many nodes does.
   */
  constructor(options: { now?: () => number } = {}) {
    this.leases = new ProcessLeases(options.now ? { now: options.now } : {});
    this.sweepLock = new ProcessSweepLock(options.now ? { now: options.now } : {});
    this.workerStore = new ProcessWorkerStore({
      ...(options.now ? { now: options.now } : {}),
      check: () => this.checkUsable(),
    });
    this.sessionStore = new ProcessSessionStore({
      check: () => this.checkUsable(),
      runStatus: (runId) => this.runs.get(runId)?.status as RunStatus | undefined,
    });
  }

  createSession(session: SessionRow): Promise<boolean> {
    return this.sessionStore.createSession(session);
  }

  getSession(id: string): Promise<SessionRow | undefined> {
    return this.sessionStore.getSession(id);
  }

  listSessions(filter?: SessionFilter): Promise<SessionRow[]> {
    return this.sessionStore.listSessions(filter);
  }

  async deleteSession(id: string): Promise<boolean> {
    const deleted = await this.sessionStore.deleteSession(id);
    if (deleted) this.artifacts.deleteScope(`session:${id}`);
    return deleted;
  }

  addMemories(memories: readonly StoredMemory[]): Promise<number> {
    return this.memories.addMemories(memories);
  }

  knownMemories(ids: readonly string[]): Promise<string[]> {
    return this.memories.knownMemories(ids);
  }

  searchMemories(query: MemoryQuery): Promise<FoundMemory[]> {
    return this.memories.searchMemories(query);
  }

  memoryEmbeddings(app: string, principal: string): Promise<{ id: string; embedding: Float32Array }[]> {
    return this.memories.memoryEmbeddings(app, principal);
  }

  getMemories(ids: readonly string[]): Promise<Omit<StoredMemory, 'embedding'>[]> {
    return this.memories.getMemories(ids);
  }

  deleteMemories(filter: MemoryFilter): Promise<number> {
    return this.memories.deleteMemories(filter);
  }

  saveArtifact(save: ArtifactSave): Promise<ArtifactInfo> {
    return this.artifacts.saveArtifact(save);
  }

  loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Promise<Artifact | undefined> {
    return this.artifacts.loadArtifact(scope, name, version);
  }

  listArtifacts(scopes: readonly ArtifactScopeId[]): Promise<ArtifactInfo[]> {
    return this.artifacts.listArtifacts(scopes);
  }

  artifactVersions(scope: ArtifactScopeId, name: string): Promise<ArtifactInfo[]> {
    return this.artifacts.artifactVersions(scope, name);
  }

  labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly string[]): Promise<void> {
    return this.artifacts.labelArtifact(scope, name, version, labels);
  }

  deleteArtifact(scope: ArtifactScopeId, name: string): Promise<number> {
    return this.artifacts.deleteArtifact(scope, name);
  }

  claimTurn(sessionId: string, runId: string, at: number, startingMs: number): Promise<TurnClaim> {
    return this.sessionStore.claimTurn(sessionId, runId, at, startingMs);
  }

  sessionRuns(sessionId: string): Promise<string[]> {
    return this.sessionStore.sessionRuns(sessionId);
  }

  loadState(scopes: readonly StateScopeId[]): Promise<StoredStateValue[]> {
    return this.sessionStore.loadState(scopes);
  }

  editState(edit: StateEdit): Promise<void> {
    return this.sessionStore.editState(edit);
  }

  listStateEdits(scope: StateScopeId): Promise<StoredStateEdit[]> {
    return this.sessionStore.listStateEdits(scope);
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

  onFailure(listener: (error: StoreError) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  async purgeRuns(query: PurgeRunsQuery): Promise<PurgedRuns> {
    this.checkUsable();
    checkPurgeRunsQuery(query);
    const statuses: readonly string[] = query.statuses;
    const victims = [...this.runs.values()]
      .filter(
        (row) =>
          statuses.includes(row.status) &&
          row.updated_at < query.before &&
          coversAgent(query.agents, row.agent) &&
          !this.sessionStore.holdsRun(row.id) &&
          !this.leases.isHeld(row.id) &&
          !this.pendingAnswers.has(row.id) &&
          !this.pendingCancels.has(row.id),
      )
      .sort((a, b) => a.updated_at - b.updated_at || (a.id < b.id ? -1 : 1))
      .slice(0, query.limit);
    let records = 0;
    for (const { id } of victims) {
      records += this.journals.get(id)?.length ?? 0;
      this.journals.delete(id);
      for (const [parkId, park] of this.parks) if (park.run_id === id) this.parks.delete(parkId);
      this.artifacts.deleteScope(`run:${id}`);
      this.leases.forget(id);
      this.runs.delete(id);
    }
    return { runIds: victims.map((row) => row.id).sort(), records };
  }

  async purgeSessions(query: PurgeSessionsQuery): Promise<number> {
    checkTime(query.idleBefore, 'idleBefore');
    checkBatch(query.limit);
    const ids = this.sessionStore.purgeIdle(query);
    for (const id of ids) this.artifacts.deleteScope(`session:${id}`);
    return ids.length;
  }

  async purgeMemories(query: PurgeMemoriesQuery): Promise<number> {
    checkTime(query.before, 'before');
    checkBatch(query.limit);
    return this.memories.purgeBefore(query);
  }

  async purgeArtifactVersions(query: PurgeArtifactsQuery): Promise<number> {
    checkKeepVersions(query.keepVersions);
    checkBatch(query.limit);
    return this.artifacts.purgeVersions(query, (scope) =>
      artifactScopeApp(scope, (sessionId) => this.sessionStore.appOf(sessionId)),
    );
  }

  async claimSweep(holder: string, ttlMs: number): Promise<boolean> {
    this.checkUsable();
    return this.sweepLock.claim(holder, ttlMs);
  }

  async releaseSweep(holder: string): Promise<void> {
    this.sweepLock.release(holder);
  }

  async ping(): Promise<void> {
    this.checkUsable();
  }

  /** Nothing to lock: a memory store belongs to the process that made it. */
  async lockForRuntime(): Promise<void> {
    this.checkUsable();
  }

  /**
   * Fails the store as a failed flush fails the SQLite store: every later call throws, and the
   * listeners hear of it once. Tests use it to play a disk that fills.
   */
  fail(error: StoreError): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    for (const listener of [...this.failureListeners]) {
      try {
        listener(error);
      } catch {
        // One listener's failure must not keep the others from hearing.
      }
    }
  }

  async migrate(): Promise<void> {
    this.checkUsable();
  }

  async write(write: RunWrite, _options: { durable: boolean }): Promise<void> {
    this.checkUsable();
    const serialized = serializeWrite(write);
    if (serialized.lease) this.leases.check(serialized.lease);
    const conflict = this.findConflict(serialized);
    if (conflict !== undefined) {
      const failure = new StoreError(`writing to the memory store failed, so the write is lost: ${conflict}`);
      this.fail(failure);
      throw failure;
    }
    this.apply(serialized);
  }

  async answerPark(answer: ParkAnswerWrite): Promise<void> {
    this.checkUsable();
    const write = serializeWrite(answer.write);
    const park = this.parks.get(answer.parkId);
    if (park === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
    if (park.status !== 'open') throw parkNotOpenError(answer.parkId, park);
    if (park.run_id !== write.runId) {
      throw new StoreError(`park ${answer.parkId} belongs to run ${park.run_id}, not to run ${write.runId}`);
    }
    if (write.lease) this.leases.check(write.lease);
    const conflict = this.findConflict(write);
    if (conflict !== undefined) throw new StoreError(`answering park ${answer.parkId} failed: ${conflict}`);
    this.parks.set(park.id, {
      ...park,
      status: 'answered',
      decision: JSON.stringify(answer.decision),
      answered_by: answer.by,
      answered_at: answer.at,
    });
    this.apply(write);
  }

  async claimRun(runId: string, terms: LeaseTerms): Promise<Lease | undefined> {
    this.checkUsable();
    return this.leases.claim(runId, terms);
  }

  async claimRuns(terms: LeaseTerms, limit: number, options: ClaimOptions = {}): Promise<Lease[]> {
    this.checkUsable();
    const { agents, predecessors } = options;
    const claimed: Lease[] = [];
    for (const row of this.runs.values()) {
      if (claimed.length >= limit) break;
      if (agents && !agents.includes(row.agent)) continue;
      if (!this.needsDriving(row) || !this.leases.isClaimable(row.id, terms, predecessors)) continue;
      const lease = this.leases.claim(row.id, terms);
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
    if (!this.leases.release(lease)) return;
    const row = this.runs.get(lease.runId);
    if (row && this.needsDriving(row)) this.leases.signal({ type: 'claimable', runId: lease.runId });
  }

  async requestAnswer(answer: PendingAnswer & { readonly callHash: string }): Promise<void> {
    this.checkUsable();
    const park = this.parks.get(answer.parkId);
    if (park === undefined) throw new ParkNotFoundError(`no park has the id ${answer.parkId}`);
    if (park.status !== 'open') throw parkNotOpenError(answer.parkId, park);
    if (parkRowFrom(park).callHash !== answer.callHash) {
      throw new StaleParkAnswerError(
        `park ${answer.parkId} now holds another call than the one answered; look at it again`,
      );
    }
    this.parks.set(park.id, {
      ...park,
      status: 'answered',
      decision: JSON.stringify(answer.decision),
      answered_by: answer.by,
      answered_at: answer.at,
    });
    const { callHash: _callHash, ...pending } = answer;
    const list = this.pendingAnswers.get(park.run_id) ?? [];
    list.push(JSON.parse(JSON.stringify(pending)) as PendingAnswer);
    this.pendingAnswers.set(park.run_id, list);
    this.leases.signal({ type: 'requested', runId: park.run_id });
  }

  async requestCancel(runId: string, reason: string, at: number): Promise<void> {
    this.checkUsable();
    if (!this.runs.has(runId)) throw new RunNotFoundError(`no run ${JSON.stringify(runId)}`);
    if (!this.pendingCancels.has(runId)) this.pendingCancels.set(runId, { reason, at });
    this.leases.signal({ type: 'requested', runId });
  }

  async requests(runId: string): Promise<RunRequests> {
    this.checkUsable();
    const cancel = this.pendingCancels.get(runId);
    return { answers: [...(this.pendingAnswers.get(runId) ?? [])], ...(cancel ? { cancel: { ...cancel } } : {}) };
  }

  onRunSignal(listener: (signal: RunSignal) => void): () => void {
    return this.leases.onSignal(listener);
  }

  /** Whether a run needs a node to drive it: running, or parked with a request waiting. */
  private needsDriving(row: RunColumns): boolean {
    if (row.status === 'running') return true;
    return row.status === 'parked' && (this.pendingAnswers.has(row.id) || this.pendingCancels.has(row.id));
  }

  async getRun(runId: string): Promise<RunRow | undefined> {
    this.checkUsable();
    const row = this.runs.get(runId);
    return row === undefined ? undefined : runRowFrom(row);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    this.checkUsable();
    const limit = checkLimit(filter.limit);
    const statuses: readonly string[] | undefined = typeof filter.status === 'string' ? [filter.status] : filter.status;
    const rows = [...this.runs.values()].filter(
      (row) =>
        (statuses === undefined || statuses.includes(row.status)) &&
        (filter.agent === undefined || row.agent === filter.agent) &&
        (filter.agents === undefined || filter.agents.includes(row.agent)) &&
        (filter.principal === undefined || row.principal === filter.principal),
    );
    return rows.sort(compareRunsNewestFirst).slice(0, limit).map(runRowFrom);
  }

  async loadJournal(runId: string, afterSeq?: number): Promise<StoredRecord[]> {
    this.checkUsable();
    const entries = this.journals.get(runId) ?? [];
    const start = afterSeq === undefined ? 0 : firstFrom(entries, afterSeq, false);
    return entries.slice(start).map((entry) => storedRecordFrom(runId, entry));
  }

  async lastSeq(runId: string): Promise<number> {
    this.checkUsable();
    return this.journals.get(runId)?.at(-1)?.seq ?? 0;
  }

  async getPark(parkId: string): Promise<ParkRow | undefined> {
    this.checkUsable();
    const row = this.parks.get(parkId);
    return row === undefined ? undefined : parkRowFrom(row);
  }

  async listParks(filter: ParkFilter = {}): Promise<ParkRow[]> {
    this.checkUsable();
    const limit = checkLimit(filter.limit);
    const rows = [...this.parks.values()].filter(
      (row) =>
        (filter.status === undefined || row.status === filter.status) &&
        (filter.runId === undefined || row.run_id === filter.runId) &&
        (filter.kind === undefined || row.kind === filter.kind) &&
        (filter.agents === undefined || filter.agents.includes(this.runs.get(row.run_id)?.agent ?? '')) &&
        (filter.principal === undefined || row.principal === filter.principal),
    );
    const newest = filter.order === 'newest';
    const after = filter.after;
    const sorted = rows.sort(newest ? (left, right) => compareParksOldestFirst(right, left) : compareParksOldestFirst);
    const paged =
      after === undefined
        ? sorted
        : sorted.filter((row) => {
            const position = compareParksOldestFirst(row, { created_at: after.createdAt, id: after.id } as ParkColumns);
            return newest ? position < 0 : position > 0;
          });
    return paged.slice(0, limit).map(parkRowFrom);
  }

  async countOpenParks(): Promise<Partial<Record<ParkKind, number>>> {
    this.checkUsable();
    const counts: Partial<Record<ParkKind, number>> = {};
    for (const row of this.parks.values()) {
      const kind = row.kind as ParkKind;
      if (row.status === 'open') counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return counts;
  }

  readonly #allowances = new Map<string, Allowance>();

  /** OAuth credentials by server, principal and kind (joined by NUL). */
  readonly #oauth = new Map<string, StoredOAuthCredential>();

  async getOAuthCredential(key: OAuthCredentialKey): Promise<StoredOAuthCredential | undefined> {
    this.checkUsable();
    const found = this.#oauth.get(oauthKey(key));
    return found === undefined ? undefined : { ...found };
  }

  async putOAuthCredential(credential: StoredOAuthCredential): Promise<void> {
    this.checkUsable();
    if (!Number.isSafeInteger(credential.updatedAt)) {
      throw new StoreError(`OAuth ${credential.kind} of ${credential.server}: updatedAt must be an integer time in ms`);
    }
    const { server, principal, kind, value, updatedAt } = credential;
    this.#oauth.set(oauthKey(credential), { server, principal, kind, value, updatedAt });
  }

  async deleteOAuthCredentials(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): Promise<number> {
    this.checkUsable();
    let deleted = 0;
    for (const [key, credential] of this.#oauth) {
      if (credential.server !== filter.server) continue;
      if (filter.principal !== undefined && credential.principal !== filter.principal) continue;
      if (filter.kinds !== undefined && !filter.kinds.includes(credential.kind)) continue;
      this.#oauth.delete(key);
      deleted += 1;
    }
    return deleted;
  }

  async putAllowance(allowance: Allowance): Promise<void> {
    this.checkUsable();
    this.#allowances.set(`${allowance.agent}\u0000${allowance.tool}`, { ...allowance });
  }

  async listAllowances(): Promise<Allowance[]> {
    this.checkUsable();
    return [...this.#allowances.values()].map((allowance) => ({ ...allowance }));
  }

  async putPrincipal(principal: Principal): Promise<void> {
    this.checkUsable();
    const columns = principalColumns(principal);
    for (const other of this.principals.values()) {
      if (other.name === columns.name && other.id !== columns.id) {
        throw new InvalidInputError(`a principal named ${columns.name} exists`);
      }
    }
    this.principals.set(columns.id, columns);
  }

  async getPrincipal(id: string): Promise<Principal | undefined> {
    this.checkUsable();
    const row = this.principals.get(id);
    return row === undefined ? undefined : principalFrom(row);
  }

  async listPrincipals(): Promise<Principal[]> {
    this.checkUsable();
    const rows = [...this.principals.values()].sort((left, right) =>
      left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
    );
    return rows.map(principalFrom);
  }

  async putToken(token: TokenInfo & { readonly hash: string }): Promise<void> {
    this.checkUsable();
    const columns = tokenColumns(token);
    if (!this.principals.has(columns.principal_id)) {
      throw new PrincipalNotFoundError(`no principal has the id ${columns.principal_id}`);
    }
    if (this.tokens.has(columns.id)) throw new StoreError(`writing token ${columns.id} failed: its id exists`);
    if (this.tokenHashes.has(columns.hash)) throw new StoreError(`writing token ${columns.id} failed: its hash exists`);
    this.tokens.set(columns.id, columns);
    this.tokenHashes.set(columns.hash, columns.id);
  }

  async findTokenByHash(hash: string): Promise<(TokenInfo & { hash: string; principal: Principal }) | undefined> {
    this.checkUsable();
    const id = this.tokenHashes.get(hash);
    const token = id === undefined ? undefined : this.tokens.get(id);
    const principal = token === undefined ? undefined : this.principals.get(token.principal_id);
    if (token === undefined || principal === undefined) return undefined;
    return { ...tokenInfoFrom(token), hash: token.hash, principal: principalFrom(principal) };
  }

  async revokeToken(id: string, at: number): Promise<boolean> {
    this.checkUsable();
    if (!Number.isSafeInteger(at)) throw new StoreError(`token ${id}: revokedAt must be an integer time in ms`);
    const token = this.tokens.get(id);
    if (token === undefined) return false;
    if (token.revoked_at === null) this.tokens.set(id, { ...token, revoked_at: at });
    return true;
  }

  async listTokens(principalId?: string): Promise<TokenInfo[]> {
    this.checkUsable();
    const rows = [...this.tokens.values()].filter(
      (row) => principalId === undefined || row.principal_id === principalId,
    );
    return rows.sort(compareTokens).map(tokenInfoFrom);
  }

  /** Releases the store: later calls reject. Calling it again does nothing. */
  async close(): Promise<void> {
    this.closed = true;
  }

  private checkUsable(): void {
    if (this.closed) throw new StoreError('the memory store is closed');
    if (this.failure !== undefined) {
      throw new StoreError(`the memory store failed and must be replaced: ${this.failure.message}`, {
        cause: this.failure,
      });
    }
  }

  /** What in `write` clashes with what is stored (or with itself), if anything. */
  private findConflict(write: SerializedWrite): string | undefined {
    const entries = this.journals.get(write.runId) ?? [];
    const seqs = new Set<number>();
    for (const { seq } of write.records) {
      if (seqs.has(seq) || entries[firstFrom(entries, seq, true)]?.seq === seq) {
        return `run ${write.runId} already has a journal record with seq ${seq}`;
      }
      seqs.add(seq);
    }
    const parkIds = new Set<string>();
    for (const { id } of write.parks) {
      if (parkIds.has(id) || this.parks.has(id)) return `a park with the id ${id} exists already`;
      parkIds.add(id);
    }
    return undefined;
  }

  private apply(write: SerializedWrite): void {
    const { runId } = write;
    if (write.run !== undefined) this.runs.set(runId, write.run);
    if (write.recordedAnswers.length > 0) {
      const left = (this.pendingAnswers.get(runId) ?? []).filter(
        (answer) => !write.recordedAnswers.includes(answer.parkId),
      );
      if (left.length > 0) this.pendingAnswers.set(runId, left);
      else this.pendingAnswers.delete(runId);
    }
    if (write.cancelTaken) this.pendingCancels.delete(runId);
    if (write.state.length > 0) this.sessionStore.applyState(write.state.map(stateWrite), write.stateAt, runId);
    const last = write.records.at(-1);
    if (last && this.leases.listened) this.leases.signal({ type: 'appended', runId, seq: last.seq });
    if (write.records.length > 0) {
      let entries = this.journals.get(runId);
      if (entries === undefined) {
        entries = [];
        this.journals.set(runId, entries);
      }
      for (const entry of write.records) {
        const last = entries.at(-1);
        if (last === undefined || last.seq < entry.seq) entries.push(entry);
        else entries.splice(firstFrom(entries, entry.seq, true), 0, entry);
      }
    }
    const principal = this.runs.get(runId)?.principal ?? null;
    for (const park of write.parks) {
      this.parks.set(park.id, {
        ...park,
        run_id: runId,
        status: 'open',
        principal,
        decision: null,
        answered_by: null,
        answered_at: null,
      });
    }
    for (const parkId of write.closeParks) {
      const park = this.parks.get(parkId);
      if (park?.run_id === runId && park.status === 'open') this.parks.set(parkId, { ...park, status: 'closed' });
    }
  }
}

function stateWrite(columns: StateColumns): ScopedStateWrite {
  const labels = JSON.parse(columns.labels) as string[];
  return columns.value === null
    ? { scope: columns.scope, key: columns.key, deleted: true, labels }
    : { scope: columns.scope, key: columns.key, value: JSON.parse(columns.value), labels };
}

/**
 * A new, empty in-memory store.
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await store.migrate();
 * ```
 */
export function memoryStore(): MemoryStore {
  return new MemoryStore();
}

/** The memory store's key of an OAuth credential. */
function oauthKey(key: OAuthCredentialKey): string {
  return `${key.server}\u0000${key.principal}\u0000${key.kind}`;
}
