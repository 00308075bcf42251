export { type AnnotationKey, type Annotations, checkAnnotations } from './annotations.js';
export {
  type Answer,
  describeReason,
  type ErrorAnswer,
  type ExternalWork,
  error,
  type Issue,
  isAnswer,
  type OkAnswer,
  ok,
  type ParkAnswer,
  park,
  type ReportOptions,
  started,
  withReport,
} from './answer.js';
export { exceedsDepth, MAX_JSON_DEPTH, type NormalizedArguments, normalizeArguments } from './arguments.js';
export {
  type Artifact,
  type ArtifactInfo,
  type ArtifactSaveOptions,
  type ArtifactSource,
  ArtifactsView,
  type ToolArtifacts,
} from './artifacts.js';
export { call, findTool, type ToolCall, type Tools } from './call.js';
export {
  type Approval,
  CallContext,
  type CompleteExternal,
  type ContextOptions,
  createContext,
  type ExternalOutcome,
  type Progress,
  type ToolContext,
} from './context.js';
export { describeType } from './describe-type.js';
export {
  DESCRIPTION_ORIGIN,
  type DescriptionOrigin,
  describedBy,
  descriptionLabels,
  descriptionOrigin,
} from './description-origin.js';
export { ToolDefinitionError, WardrikError } from './errors.js';
export {
  escapeInvisible,
  hasInvisible,
  type InvisibleCharacter,
  revealInvisible,
  showCodePoint,
  splitInvisible,
  type TextPart,
} from './invisible.js';
export { type Label, mergeLabels, OUTSIDE } from './labels.js';
export {
  answerToMcpResult,
  fromMcpTool,
  type McpCallToolResult,
  type McpContent,
  type McpTool,
  type McpToolAnnotations,
  META,
  mcpResultToAnswer,
  toMcpTool,
} from './mcp.js';
export { addMeasures, type Measures } from './measures.js';
export {
  type MemoryMatch,
  type MemorySearchOptions,
  type MemorySource,
  MemoryView,
  type ToolMemory,
} from './memory.js';
export type { InputQuestion, InputReply, RequestInputFor, SampleRequest, SampleResult } from './person-input.js';
export { compileSchema, isJsonSchema } from './schema/compile.js';
export type { NoArguments, ObjectJsonSchema, SchemaArguments } from './schema/infer.js';
export type { JsonSchemaArguments, JsonSchemaValue } from './schema/infer-json-schema.js';
export type { ShorthandArguments, ShorthandValue } from './schema/infer-shorthand.js';
export { shorthandToJsonSchema } from './schema/shorthand.js';
export { isStandardSchema } from './schema/standard.js';
export type {
  CompiledSchema,
  JsonSchema,
  SchemaInput,
  Shorthand,
  ShorthandField,
  ShorthandType,
  ValidationResult,
} from './schema/types.js';
export {
  checkStateKey,
  MAX_STATE_KEY_LENGTH,
  MAX_STATE_VALUE_BYTES,
  type StateChange,
  type StateEntry,
  type StateReader,
  type StateScope,
  type StateSource,
  StateView,
  type StateViewOptions,
  stateKeyProblem,
  stateScope,
  storableStateValue,
  type ToolState,
} from './state.js';
export {
  type Arguments,
  annotate,
  annotation,
  getPrivate,
  isValidToolName,
  putPrivate,
  type RunResult,
  repeatable,
  type Tool,
  type ToolOptions,
  tool,
  updatePrivate,
} from './tool.js';
export { type Toolset, type ToolsetContext, type ToolsetOptions, toolset } from './toolset.js';
