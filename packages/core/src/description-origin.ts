import { describeType } from './describe-type.js';
import { ToolDefinitionError } from './errors.js';
import type { Label } from './labels.js';
import { type Arguments, getPrivate, putPrivate, type Tool } from './tool.js';

/** The private key under which a tool keeps where its definition came from (see {@link describedBy}). */
export const DESCRIPTION_ORIGIN = Symbol.for('wardrik.description-origin');

/**
 * Where a tool's definition — its name, title, description, schemas and annotations, all of which
 * the model reads — came from, when it is not the code of the agent's own side: an MCP server's or
 * a worker's listing. What such a source says about its tools is text from outside, like an answer.
 */
export interface DescriptionOrigin {
  /** The source, as people and metrics name it, e.g. `mcp:fs` or `worker:alice`. */
  readonly source: string;
  /** The tool's name as the source lists it (a pin is keyed by it). */
  readonly tool: string;
  /**
   * The labels a model step offered this tool carries: `['outside']` for a definition nobody
   * reviewed, none for one the operator pinned or whose source is trusted.
   */
  readonly labels: readonly Label[];
  /** What identifies the definition as the source wrote it (e.g. `sha256:…`): the value to pin it with. */
  readonly hash?: string;
  /** The operator pinned this tool, and the definition now differs from what was pinned. */
  readonly changed?: boolean;
}

/**
 * A copy of `tool` marked with where its definition came from. Every model step that offers the
 * tool carries `origin.labels` (the runtime merges the labels of every definition it offers), so a
 * run whose model read an unreviewed description is judged as one that read outside text.
 * Throws `ToolDefinitionError` naming the field if `origin` is malformed.
 *
 * @example
 * ```ts
 * const listed = fromMcpTool(item, (args, context) => callServer(item.name, args, context))
 * const marked = describedBy(listed, { source: 'mcp:docs', tool: item.name, labels: [OUTSIDE] })
 * descriptionLabels(marked) // ['outside']
 * ```
 */
export function describedBy<Args>(tool: Tool<Args>, origin: DescriptionOrigin): Tool<Args> {
  return putPrivate(tool, DESCRIPTION_ORIGIN, checkOrigin(tool.name, origin));
}

/**
 * Where `tool`'s definition came from, if a source marked it (see {@link describedBy}).
 *
 * @example
 * ```ts
 * descriptionOrigin(marked)?.source // 'mcp:docs'
 * ```
 */
export function descriptionOrigin(tool: Tool<never> | Tool<Arguments>): DescriptionOrigin | undefined {
  return getPrivate<DescriptionOrigin | undefined>(tool, DESCRIPTION_ORIGIN, undefined);
}

const NO_LABELS: readonly Label[] = Object.freeze([]);

/**
 * The labels offering `tool` to a model gives the step: those of its definition's origin, none
 * for a tool its own side wrote.
 *
 * @example
 * ```ts
 * descriptionLabels(orderStatus) // [] (written in the agent's code)
 * ```
 */
export function descriptionLabels(tool: Tool<never> | Tool<Arguments>): readonly Label[] {
  return descriptionOrigin(tool)?.labels ?? NO_LABELS;
}

function checkOrigin(name: string, origin: unknown): DescriptionOrigin {
  const fail = (message: string): never => {
    throw new ToolDefinitionError(`describedBy ${name}: ${message}`);
  };
  if (typeof origin !== 'object' || origin === null)
    return fail(`expected an origin object, got ${describeType(origin)}`);
  const { source, tool, labels, hash, changed } = origin as Record<string, unknown>;
  if (typeof source !== 'string' || source === '')
    fail(`source must be a non-empty string, got ${describeType(source)}`);
  if (typeof tool !== 'string' || tool === '') fail(`tool must be a non-empty string, got ${describeType(tool)}`);
  if (!Array.isArray(labels) || labels.some((label) => typeof label !== 'string' || label === '')) {
    fail('labels must be an array of non-empty strings');
  }
  if (hash !== undefined && typeof hash !== 'string') fail(`hash must be a string, got ${describeType(hash)}`);
  if (changed !== undefined && typeof changed !== 'boolean') {
    fail(`changed must be a boolean, got ${describeType(changed)}`);
  }
  return Object.freeze({
    source: source as string,
    tool: tool as string,
    labels: Object.freeze([...new Set(labels as string[])].sort()),
    ...(hash === undefined ? {} : { hash: hash as string }),
    ...(changed ? { changed: true } : {}),
  });
}
