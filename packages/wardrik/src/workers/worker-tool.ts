import {
  type Annotations,
  type Answer,
  type Arguments,
  type DescriptionOrigin,
  describedBy,
  type McpTool,
  type McpToolAnnotations,
  OUTSIDE,
  putPrivate,
  type Tool,
  type ToolContext,
  tool,
} from '@wardrik/core';
import { withSourceFacts } from '../tool-sources/tool-source-facts.js';

/** The private key marking a tool as offered by workers. */
export const WORKER_TOOL = Symbol.for('wardrik.worker-tool');

/** What the private data of a worker tool says. */
export interface WorkerToolInfo {
  /**
   * The tool's name as the workers list it (the model sees `workerModelName(workerName)`). For a
   * stand-in whose worker name is not known yet, the model's name without `workers__`.
   */
  readonly workerName: string;
  /** Whether every worker offering it marks it read-only. */
  readonly readOnlyEverywhere: boolean;
  /** True for a stand-in: no worker offered the tool when it was asked for. */
  readonly standIn?: boolean;
}

/** What a worker tool is built from. */
export interface WorkerToolSpec {
  /** The name the model sees (see `workerModelName`). */
  readonly modelName: string;
  readonly workerName: string;
  /** The listing whose title, description and input schema the model is given. */
  readonly listed: McpTool;
  /** The hints of every worker offering the tool (none for a stand-in). */
  readonly hints: readonly McpToolAnnotations[];
  /** Whether worker answers go unlabelled (else they carry `outside`). */
  readonly trusted: boolean;
  readonly standIn?: boolean;
  /**
   * Where the definition the model is given came from, and the labels a model step offered the
   * tool carries (see `describedBy`). None for a stand-in, which no model is offered.
   */
  readonly origin?: DescriptionOrigin;
  readonly run: (args: Arguments, context: ToolContext) => Promise<Answer>;
}

/**
 * A worker tool as the run sees it. Annotations are what every offering worker agrees on:
 * read-only if all say so, idempotent if all say read-only or idempotent; destructive or open-world
 * if any says so. Throws `ToolDefinitionError` if the listing cannot make a tool.
 */
export function buildWorkerTool(spec: WorkerToolSpec): Tool<Arguments> {
  const { hints, listed } = spec;
  const every = (test: (hint: McpToolAnnotations) => boolean) => hints.length > 0 && hints.every(test);
  const annotations: Record<string, unknown> = {};
  if (every((hint) => hint.readOnlyHint === true)) annotations.readOnly = true;
  if (every((hint) => hint.readOnlyHint === true || hint.idempotentHint === true)) annotations.idempotent = true;
  if (hints.some((hint) => hint.destructiveHint === true)) annotations.destructive = true;
  if (hints.some((hint) => hint.openWorldHint === true)) annotations.openWorld = true;
  if (!spec.trusted) annotations.labels = [OUTSIDE];
  const built = tool({
    name: spec.modelName,
    ...(listed.title === undefined ? {} : { title: listed.title }),
    description: listed.description ?? '',
    schema: { type: 'object', ...listed.inputSchema },
    annotations: annotations as Annotations,
    run: spec.run,
  });
  const info: WorkerToolInfo = {
    workerName: spec.workerName,
    readOnlyEverywhere: annotations.readOnly === true,
    ...(spec.standIn ? { standIn: true } : {}),
  };
  const marked = withSourceFacts(putPrivate(built, WORKER_TOOL, info), {
    source: 'workers',
    readOnlyEverywhere: info.readOnlyEverywhere,
    ...(info.standIn ? { standsInFor: info.workerName } : {}),
  });
  return spec.origin ? describedBy(marked, spec.origin) : marked;
}
