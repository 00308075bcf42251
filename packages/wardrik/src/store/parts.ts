// How a store adapter is assembled from per-concern parts (DESIGN.md §2 "Stores"): each part
// implements one small interface over the adapter's executor (a SQLite handle and its commit queue,
// a pg pool and its group commit, or plain maps), and the adapter's class forwards each interface's
// methods to its part. The method lists below name every method of each interface once (a missing
// or extra one is a type error), so no adapter can leave one out.
import type { ArtifactStore } from './artifact-store.js';
import type { AuthStore } from './auth-store.js';
import type { MemoryIndex } from './memory-index.js';
import type { OAuthStore } from './oauth-store.js';
import type { RetentionStore } from './retention-store.js';
import type { RunStore } from './run-store.js';
import type { SessionStore } from './session-store.js';
import type { WorkerStore } from './worker-store.js';

/** The methods of a `RunStore` an adapter keeps itself: opening, checking and closing the store. */
export type StoreLifecycle = 'migrate' | 'ping' | 'close' | 'onFailure' | 'onCommit' | 'lockForRuntime';

/** Who may write each run: the lease methods of a `RunStore`, and the run signals. */
export type LeaseMethods = Pick<
  RunStore,
  'claimRun' | 'claimRuns' | 'renewLeases' | 'releaseLease' | 'leaseHolderState' | 'onRunSignal'
>;

/** Runs, journals, parks, standing decisions and requests: the rest of a `RunStore`. */
export type RunMethods = Omit<RunStore, StoreLifecycle | keyof LeaseMethods>;

type Names<T> = { readonly [K in keyof T]-?: true };

export const LEASE_METHODS: Names<LeaseMethods> = {
  claimRun: true,
  claimRuns: true,
  renewLeases: true,
  releaseLease: true,
  leaseHolderState: true,
  onRunSignal: true,
};

export const RUN_METHODS: Names<RunMethods> = {
  write: true,
  answerPark: true,
  getRun: true,
  listRuns: true,
  loadJournal: true,
  lastSeq: true,
  getPark: true,
  listParks: true,
  countOpenParks: true,
  putAllowance: true,
  listAllowances: true,
  requestAnswer: true,
  requestCancel: true,
  requests: true,
};

export const AUTH_METHODS: Names<AuthStore> = {
  putPrincipal: true,
  getPrincipal: true,
  listPrincipals: true,
  putToken: true,
  findTokenByHash: true,
  revokeToken: true,
  listTokens: true,
};

export const WORKER_METHODS: Names<WorkerStore> = {
  beat: true,
  leave: true,
  putOffer: true,
  removeOffer: true,
  listOffers: true,
  post: true,
  takeMail: true,
  withdraw: true,
  note: true,
  onWorkerSignal: true,
};

export const SESSION_METHODS: Names<SessionStore> = {
  createSession: true,
  getSession: true,
  listSessions: true,
  deleteSession: true,
  claimTurn: true,
  sessionRuns: true,
  loadState: true,
  editState: true,
  listStateEdits: true,
};

export const MEMORY_METHODS: Names<MemoryIndex> = {
  addMemories: true,
  knownMemories: true,
  searchMemories: true,
  memoryEmbeddings: true,
  getMemories: true,
  deleteMemories: true,
};

export const ARTIFACT_METHODS: Names<ArtifactStore> = {
  saveArtifact: true,
  loadArtifact: true,
  listArtifacts: true,
  artifactVersions: true,
  labelArtifact: true,
  deleteArtifact: true,
};

export const RETENTION_METHODS: Names<RetentionStore> = {
  purgeRuns: true,
  purgeSessions: true,
  purgeMemories: true,
  purgeArtifactVersions: true,
  claimSweep: true,
  releaseSweep: true,
};

export const OAUTH_METHODS: Names<OAuthStore> = {
  getOAuthCredential: true,
  putOAuthCredential: true,
  deleteOAuthCredentials: true,
};

// biome-ignore lint/suspicious/noExplicitAny: any method of a part, forwarded as it is
type Method = (...args: any[]) => unknown;

/**
 * Gives `Class` the methods named in `names`, each calling the same method of the part
 * `partOf(this)` returns. They go on the prototype, so a subclass may override one and call
 * `super`. Call it from a static block of the class (where its private fields are in reach), and
 * declare the methods in an interface of the class's name.
 */
export function delegate<Instance, Part extends { [K in keyof Listed]: Method }, Listed>(
  Class: abstract new (...args: never[]) => Instance,
  partOf: (instance: Instance) => Part,
  names: Listed,
): void {
  for (const name of Object.keys(names as object) as Array<keyof Listed & string>) {
    if (Object.hasOwn(Class.prototype, name)) throw new Error(`${Class.name} has a ${name} of its own already`);
    Object.defineProperty(Class.prototype, name, {
      value: function (this: Instance, ...args: unknown[]) {
        return partOf(this)[name](...args);
      },
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
}
