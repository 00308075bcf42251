import type { ArtifactStore } from './artifact-store.js';
import type { AuthStore } from './auth-store.js';
import type { MemoryIndex } from './memory-index.js';
import type { OAuthStore } from './oauth-store.js';
import type { RetentionStore } from './retention-store.js';
import type { RunStore } from './run-store.js';
import type { SessionStore } from './session-store.js';
import type { WorkerStore } from './worker-store.js';

export type { RunStatus } from '../journal/run-status.js';
export { isEnded } from '../journal/run-status.js';
export type {
  Allowance,
  ParkAnswerWrite,
  ParkFilter,
  ParkRow,
  RunFilter,
  RunRow,
  RunWrite,
} from './run-rows.js';

/**
 * Where runs, journals and parks (a {@link RunStore}), principals and tokens (an
 * {@link AuthStore}), the nodes' worker registry and mail (a {@link WorkerStore}), and sessions
 * and state (a {@link SessionStore}), memories (a {@link MemoryIndex}) and artifacts (an
 * {@link ArtifactStore}) are kept, what retention deletes (a {@link RetentionStore}), and the OAuth
 * credentials MCP toolsets keep for remote servers (an {@link OAuthStore}).
 * Every adapter implements all of them: SQLite (one process), PostgreSQL (many nodes), in memory
 * (tests).
 */
export interface Store
  extends RunStore,
    AuthStore,
    WorkerStore,
    SessionStore,
    MemoryIndex,
    ArtifactStore,
    RetentionStore,
    OAuthStore {}

export type { ArtifactSave, ArtifactScopeId, ArtifactStore } from './artifact-store.js';
export type { AuthStore } from './auth-store.js';
export type { FoundMemory, MemoryFilter, MemoryIndex, MemoryQuery, StoredMemory } from './memory-index.js';
export type {
  OAuthCredentialKey,
  OAuthCredentialKind,
  OAuthStore,
  StoredOAuthCredential,
} from './oauth-store.js';
export type {
  AgentSelection,
  AppSelection,
  PurgeArtifactsQuery,
  PurgeableStatus,
  PurgedRuns,
  PurgeMemoriesQuery,
  PurgeRunsQuery,
  PurgeSessionsQuery,
  RetentionStore,
} from './retention-store.js';
export type {
  ClaimOptions,
  Lease,
  LeaseHolderState,
  LeaseTerms,
  PendingAnswer,
  RunRequests,
  RunSignal,
  RunStore,
} from './run-store.js';
export type {
  ScopedStateWrite,
  SessionFilter,
  SessionRow,
  SessionStore,
  StateEdit,
  StateScopeId,
  StoredStateEdit,
  StoredStateValue,
  TurnClaim,
} from './session-store.js';
export type {
  Heartbeat,
  NodeMessage,
  OfferList,
  Pulse,
  StoredOffer,
  WorkerNode,
  WorkerOffer,
  WorkerSignal,
  WorkerStore,
} from './worker-store.js';
