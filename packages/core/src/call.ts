import { type Answer, describeReason, error, isAnswer, ok, withReport } from './answer.js';
import { normalizeArguments } from './arguments.js';
import { CallContext, type ContextOptions } from './context.js';
import { mergeLabels } from './labels.js';
import type { Arguments, Tool } from './tool.js';

/** A model's request to run a tool. `arguments` may be an object or a JSON string holding one (see `normalizeArguments`). */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments?: unknown;
}

/** The tools a call may name: a list, or a map from name to tool. */
export type Tools =
  | readonly Tool<never>[]
  | readonly Tool<Arguments>[]
  | ReadonlyMap<string, Tool<never> | Tool<Arguments>>;

/**
 * Runs the tool that `toolCall` names, after checking its arguments against the tool's schema.
 * Never throws for bad model input: an unknown tool, arguments that are not JSON, or arguments
 * that don't match give an error answer naming the tool or every field that is wrong.
 * What the call reported on its context (measures, labels) and the tool's `labels` annotation
 * are carried on the answer, also when the call failed.
 *
 * @example
 * ```ts
 * const answer = await call([orderStatus], { id: 'c1', name: 'order_status', arguments: { order_id: 'A1' } },
 *   createContext({ runId: 'r1', agent: 'support', principal: 'u1', callId: 'c1', idempotencyKey: 'r1:c1' }))
 * if (answer.type === 'ok') console.log(answer.value)
 * ```
 */
export async function call(tools: Tools, toolCall: ToolCall, context: CallContext | ContextOptions): Promise<Answer> {
  const found = findTool(tools, toolCall.name);
  if (!found) return error(unknownToolReason(tools, toolCall.name), { code: 'unknown_tool' });
  const args = normalizeArguments(toolCall.arguments);
  if (!args.ok)
    return error(`Invalid arguments for tool "${found.name}": ${args.reason}`, { code: 'invalid_arguments' });
  let checked = found.schema.validate(args.value);
  if (checked instanceof Promise) checked = await checked;
  if (!checked.ok) {
    const list = checked.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
    return error(`Invalid arguments for tool "${found.name}": ${list.join('; ')}`, {
      issues: checked.issues,
      code: 'invalid_arguments',
    });
  }
  const callContext = context instanceof CallContext ? context : new CallContext(context);
  let answer: Answer;
  try {
    let result = found.run(checked.value, callContext);
    if (isThenable(result)) result = await result;
    answer = isAnswer(result) ? result : ok(result === undefined ? null : result);
  } catch (thrown) {
    answer = error(describeReason(thrown), { code: 'thrown' });
  }
  const nothingReported =
    isEmpty(callContext.measures) && callContext.addedLabels.length === 0 && !found.annotations.labels?.length;
  if (nothingReported && isAnswer(answer)) return answer; // most calls: the answer says it all
  return withReport(
    answer,
    callContext.measuresWith(answer.measures),
    mergeLabels(callContext.addedLabels, found.annotations.labels),
  );
}

/** The tool named `name`, or undefined. */
export function findTool(tools: Tools, name: string): Tool<Arguments> | undefined {
  if (tools instanceof Map) return tools.get(name) as Tool<Arguments> | undefined;
  for (const candidate of tools as readonly Tool<Arguments>[]) if (candidate.name === name) return candidate;
  return undefined;
}

function unknownToolReason(tools: Tools, name: unknown): string {
  const names = tools instanceof Map ? [...tools.keys()] : (tools as readonly Tool<Arguments>[]).map((t) => t.name);
  const available = names.length ? `available tools: ${names.join(', ')}` : 'no tools are available';
  return `Unknown tool ${JSON.stringify(name)}; ${available}`;
}

function isEmpty(measures: object): boolean {
  for (const _ in measures) return false;
  return true;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
