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
export { mcpGatewayAgent } from './mcp-server/gateway-agent.js';
export {
  createMcpEndpoint,
  type McpEndpoint,
  type McpEndpointOptions,
} from './mcp-server/mcp-endpoint.js';
export type { McpServerOptions } from './mcp-server/mcp-options.js';
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
export {
  type AnswerOptions,
  createWardrik,
  type RunDetails,
  type RunResult,
  type StartOptions,
  Wardrik,
  type WardrikOptions,
} from './runtime/wardrik.js';
export { type AppOptions, createApp } from './server/app.js';
export {
  type MetricsSource,
  type RunningMetricsServer,
  type ServedMetrics,
  startMetricsServer,
} from './server/metrics-route.js';
export { NodeLifecycle } from './server/node-lifecycle.js';
export { type RunningServer, type ServerOptions, startServer } from './server/start-server.js';
export { attachWorkerEndpoint, WORKER_PATH } from './server/worker-endpoint.js';
export { PostgresStore, type PostgresStoreOptions, postgresStore } from './store/postgres/postgres-store.js';
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
export { backupSqlite, type SqliteBackup } from './store/sqlite/backup.js';
export { SqliteStore, sqliteStore } from './store/sqlite/sqlite-store.js';
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
export {
  createLogger,
  LOG_LEVELS,
  type LoggerOptions,
  type LogLevel,
  logRuntime,
} from './telemetry/logging.js';
export { enableMetrics, type MeteredRuntime, type MetricsOptions, type WardrikMetrics } from './telemetry/metrics.js';
export type { MetricsPlan, TelemetryConfig } from './telemetry/telemetry-config.js';
export { enableTracing, type TracingOptions } from './telemetry/tracing.js';
export type { ListedDefinition, ToolListing } from './toolsets/listed-definition.js';
export { McpServerUnavailableError } from './toolsets/mcp-server-unavailable.js';
export { type McpToolset, mcpToolset } from './toolsets/mcp-toolset.js';
export type {
  McpHttpToolsetOptions,
  McpStdioToolsetOptions,
  McpToolsetCommonOptions,
  McpToolsetOptions,
} from './toolsets/mcp-toolset-options.js';
export { MCP_TOOLSET_TOOL, type McpToolsetToolInfo } from './toolsets/mcp-toolset-tool.js';
export { type ShownDefinition, toolDefinitionHash } from './toolsets/tool-definition-hash.js';
export type { PinState, ToolPins, UnpinnedDefinition, UnpinnedDefinitionSource } from './toolsets/tool-pins.js';
export {
  type HubOptions,
  type JoinOptions,
  matches as matchesWorkerPattern,
  WORKER_PREFIX,
  WORKER_TOOL,
  type WorkerHub,
  type WorkerInfo,
  type WorkerToolInfo,
} from './workers/worker-hub.js';
