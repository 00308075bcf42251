import { MCP_TOOLSET_TOOL as INTERNAL_MCP_TOOLSET_TOOL } from './toolsets/mcp-toolset-tool.js';
import {
  WORKER_PREFIX as INTERNAL_WORKER_PREFIX,
  WORKER_TOOL as INTERNAL_WORKER_TOOL,
  matches,
} from './workers/worker-hub.js';

export { type Agent, type AgentOptions, defineAgent, type HistoryOptions } from './agent.js';
export { type AgentToolOptions, agentTool } from './agents/agent-tool.js';
export {
  type Guardrail,
  type Guardrails,
  type GuardrailVerdict,
  outputOf,
  type TrippedGuardrail,
} from './agents/final-answer.js';
export { MAX_TRANSFERS, TRANSFER_TOOL } from './agents/transfer.js';
export {
  type LoopStep,
  loopAgent,
  parallelAgent,
  sequentialAgent,
  type WorkflowOptions,
} from './agents/workflow-agents.js';
export { type LoadArtifactsOptions, loadArtifacts, loadArtifactsTool } from './artifacts/load-artifacts-tool.js';
export { isTextual, MAX_ARTIFACT_NAME_LENGTH, normalizeMediaType } from './artifacts/names.js';
export {
  type ArtifactService,
  type ArtifactUpload,
  DEFAULT_MAX_ARTIFACT_BYTES,
  RuntimeArtifacts,
} from './artifacts/runtime-artifacts.js';
export {
  type Authentication,
  AuthService,
  type CreatePrincipalInput,
  type IssuedToken,
  type IssueOptions,
} from './auth/auth-service.js';
export { can, isRunVisible, type VisibleRuns, visibleRunFilter } from './auth/permissions.js';
export { generateToken, hashToken, isTokenShaped, TOKEN_PREFIX } from './auth/tokens.js';
export type { Action, Decision, Principal, PrincipalKind, Resource, Role, TokenInfo } from './auth/types.js';
export { defineConfig, type NodeConfig, type ServerConfig, type WardrikConfig } from './config/config.js';
export { ConfigError } from './config/config-error.js';
export { CONFIG_FILE_NAMES, findConfigFile, type LoadedConfig, loadConfig } from './config/load-config.js';
export {
  AgentDefinitionError,
  AgentNotFoundError,
  ArtifactNotFoundError,
  ArtifactTooLargeError,
  InvalidInputError,
  InvalidParkAnswerError,
  LeaseLostError,
  ModelError,
  ParkAlreadyAnsweredError,
  ParkNotFoundError,
  PrincipalNotFoundError,
  RunEndedError,
  RunHeldElsewhereError,
  RunNeedsAttentionError,
  RunNotFoundError,
  SessionBusyError,
  SessionNotFoundError,
  StaleParkAnswerError,
  StoreError,
  TokenNotFoundError,
} from './errors.js';
export type { UnpinnedTool } from './journal/records.js';
export {
  type Budget,
  type EndStatus,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalRecordType,
  type ParentLink,
  type Park,
  type ParkDecision,
  type ParkedCall,
  type ParkKind,
  type StateWrite,
  type StoredRecord,
} from './journal/records.js';
export * from './mcp.js';
export type { EmbedFunction } from './memory/embeddings.js';
export { type LoadMemoryOptions, loadMemory, loadMemoryTool } from './memory/load-memory-tool.js';
export {
  DEFAULT_MEMORY_RESULTS,
  MAX_MEMORY_RESULTS,
  type MemoryEntry,
  type MemorySearchRequest,
  type MemoryService,
  type SessionContent,
  type StoreMemoryOptions,
  storeMemory,
} from './memory/memory-service.js';
export { type MemorySearch, RuntimeMemory } from './memory/runtime-memory.js';
export { MAX_MEMORY_QUERY_LENGTH, MAX_MEMORY_QUERY_WORDS } from './memory/words.js';
export {
  type AiSdkLanguageModel,
  type AiSdkModelOptions,
  aiSdkModel,
  DEFAULT_MODEL_IDLE_TIMEOUT_MS,
  DEFAULT_MODEL_TIMEOUT_MS,
} from './model/ai-sdk-model.js';
export type {
  GenerateOptions,
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  ModelToolCall,
  ModelToolDefinition,
  RequestedToolCall,
  Usage,
} from './model/model.js';
export {
  languageModelFromString,
  MODEL_PROVIDERS,
  type ModelEnvironment,
  ModelSpecError,
  modelFromEnvironment,
  modelFromString,
} from './model/model-from-string.js';
export {
  defaultPrices,
  mergePrices,
  PRICES_AS_OF,
  type Price,
  type PriceTable,
  priceFor,
  usdFor,
} from './model/prices.js';
export * from './postgres.js';
export type { RetryPolicy } from './runtime/backoff.js';
export type { AgentCallbacks, CallbackCall, CallbackName, CallbackRun } from './runtime/callbacks.js';
export { NodeStoppingError } from './runtime/drain.js';
export {
  isJournaled,
  type JournaledEvent,
  type LiveEvent,
  type RunEvent,
  type RunEventListener,
} from './runtime/events.js';
export type { ExternalOutcome } from './runtime/external-work.js';
export type { FollowOptions } from './runtime/follow-run.js';
export {
  type AttemptOutcome,
  type CallOutcome,
  type HookEvents,
  type HookListener,
  type HookName,
  Hooks,
  type TraceCarrier,
  type TracePropagation,
} from './runtime/hooks.js';
export {
  type CallFacts,
  callFacts,
  type Decision as PolicyDecision,
  decide,
  type Policy,
  type PolicyRule,
  ruleFor,
  type Verdict,
} from './runtime/policy.js';
export type { RetentionOptions } from './runtime/retention-rules.js';
export type { Purged, PurgedKind } from './runtime/retention-sweep.js';
export type { ArtifactOptions, MemoryOptions } from './runtime/services.js';
export type { SessionDetails, StateChanges } from './runtime/sessions.js';
export type { SignInCallback } from './runtime/sign-ins.js';
export {
  type AnswerOptions,
  createWardrik,
  type RunDetails,
  type RunResult,
  type StartOptions,
  Wardrik,
  type WardrikOptions,
  type WardrikReads,
} from './runtime/wardrik.js';
export * from './server.js';
export * from './sqlite.js';
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
} from './store/session-store.js';
export type {
  Allowance,
  ArtifactSave,
  ArtifactScopeId,
  ArtifactStore,
  AuthStore,
  ClaimOptions,
  FoundMemory,
  Lease,
  LeaseTerms,
  MemoryFilter,
  MemoryIndex,
  MemoryQuery,
  OAuthCredentialKey,
  OAuthCredentialKind,
  OAuthStore,
  ParkAnswerWrite,
  ParkFilter,
  ParkRow,
  PendingAnswer,
  RunFilter,
  RunRequests,
  RunRow,
  RunSignal,
  RunStatus,
  RunStore,
  RunWrite,
  Store,
  StoredMemory,
  StoredOAuthCredential,
} from './store/store.js';
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
} from './store/worker-store.js';
export * from './telemetry.js';
export type { ListedDefinition, ToolListing } from './toolsets/listed-definition.js';
export type { McpToolsetToolInfo } from './toolsets/mcp-toolset-tool.js';
export { type ShownDefinition, toolDefinitionHash } from './toolsets/tool-definition-hash.js';
export type { PinState, ToolPins, UnpinnedDefinition, UnpinnedDefinitionSource } from './toolsets/tool-pins.js';
export type { HubOptions, JoinOptions, WorkerHub, WorkerInfo, WorkerToolInfo } from './workers/worker-hub.js';

// Internals exported by earlier releases, kept for compatibility; they leave the public API later
// (issue 30). Each is the same value as inside the runtime.

/**
 * The private key marking a tool as offered by an MCP server through `mcpToolset`.
 *
 * @deprecated Internal to the runtime; it will leave wardrik's public API. Do not depend on it.
 */
export const MCP_TOOLSET_TOOL: typeof INTERNAL_MCP_TOOLSET_TOOL = INTERNAL_MCP_TOOLSET_TOOL;

/**
 * The prefix (`workers__`) of the names under which models see workers' tools.
 *
 * @deprecated Internal to the runtime; it will leave wardrik's public API. Do not depend on it.
 */
export const WORKER_PREFIX: typeof INTERNAL_WORKER_PREFIX = INTERNAL_WORKER_PREFIX;

/**
 * The private key marking a tool as a worker's.
 *
 * @deprecated Internal to the runtime; it will leave wardrik's public API. Do not depend on it.
 */
export const WORKER_TOOL: typeof INTERNAL_WORKER_TOOL = INTERNAL_WORKER_TOOL;

/**
 * Whether an agent's worker patterns (`workers/*`, `workers/NAME`) take the worker NAME.
 *
 * @deprecated Internal to the runtime; it will leave wardrik's public API. Do not depend on it.
 */
export const matchesWorkerPattern: typeof matches = matches;
