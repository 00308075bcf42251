import {
  type CompiledSchema,
  compileSchema,
  describeType,
  type InputQuestion,
  type InputReply,
  type SampleRequest,
  type ToolContext,
} from '@wardrik/core';
import { RPC } from '@wardrik/core/wire';

/**
 * The `_meta` key of a worker's `elicitation/create` or `sampling/createMessage` that names the
 * `tools/call` it is asked for: the id Wardrik gave that request (`@wardrik/worker` sets it from
 * the MCP SDK's `relatedRequestId`).
 */
export const RELATED_CALL_META = 'wardrik/related-call';

/**
 * MCP's `_meta` key of a request a server sends for one of its tasks (`{ taskId }`): the MCP SDK
 * sets it on what a task handler sends with `{ relatedTask }`.
 */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** What a worker may ask during a call, and of whom: the call's context (see `ToolContext`). */
export type CallAsker = Pick<ToolContext, 'requestInput' | 'sample'>;

/**
 * Who answers what a worker asks for one of its MCP tasks while the task waits for input: the run
 * waiting for the task (its `requestInputFor`), until `signal` aborts.
 */
export interface TaskAsker {
  readonly asker: CallAsker;
  readonly signal: AbortSignal;
}

/** The task a request's `_meta` names (`io.modelcontextprotocol/related-task`), if it names one. */
export function relatedTaskOf(meta: Readonly<Record<string, unknown>>): string | undefined {
  const related = meta[RELATED_TASK_META];
  const taskId = isRecord(related) ? related['taskId'] : undefined;
  return typeof taskId === 'string' && taskId !== '' ? taskId : undefined;
}

/**
 * The error answer for a question a worker asks for one of its tasks that nobody here passes on:
 * sampling (answered during a call only), or a task no run on this node is waiting on for input.
 */
export function taskQuestionRefused(method: string, taskId: string): QuestionAnswer {
  const at = `params._meta['${RELATED_TASK_META}']`;
  if (method !== 'elicitation/create') {
    return {
      error: {
        code: REFUSED,
        message: `${method}: ${at}: Wardrik answers ${method} only during a tools/call, not for an MCP task (task ${JSON.stringify(taskId)})`,
      },
    };
  }
  return {
    error: {
      code: RPC.invalidParams,
      message: `${method}: ${at}: nothing on this node waits for input for task ${JSON.stringify(taskId)} of this worker's principal (Wardrik passes a task's questions to a person while the task is input_required and Wardrik waits on its tasks/result; ask again from there)`,
    },
  };
}

/** What answers a worker's question: a JSON-RPC result or error. */
export type QuestionAnswer =
  | { readonly result: Record<string, unknown> }
  | { readonly error: { readonly code: number; readonly message: string } };

/** The methods a worker may ask Wardrik during a call. */
export const QUESTION_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage']);

/** JSON-RPC error codes of refused questions (who asks, or what for, is not allowed). */
const REFUSED = RPC.invalidRequest;
/** Something failed while the question was open (the call ended, the person or the model could not answer). */
const FAILED = -32603;

/** How a worker's question is answered. */
export interface QuestionOptions {
  /** Who answers: the call's context. */
  readonly asker: CallAsker;
  /** Aborted when the call ends or the worker stops asking. */
  readonly signal: AbortSignal;
  /** Whether workers may sample the agent's model (`workers: { sampling: true }`). */
  readonly sampling: boolean;
}

/**
 * Answers a worker's `elicitation/create` (asks a person through the call's `requestInput`; an
 * accepted form has its schema's defaults filled in, SEP-1034, and must then fit the schema) or
 * `sampling/createMessage` (asks the agent's model through the call's `sample`, if workers may).
 * Never throws: what goes wrong is a JSON-RPC error naming the field or the reason.
 *
 * @example
 * ```ts
 * const answer = await answerWorkerQuestion('elicitation/create', params, { asker: context, signal, sampling: false })
 * // { result: { action: 'accept', content: { account: 'savings' } } } or { error: { code, message } }
 * ```
 */
export async function answerWorkerQuestion(
  method: string,
  params: Record<string, unknown> | undefined,
  options: QuestionOptions,
): Promise<QuestionAnswer> {
  if (method === 'elicitation/create') return elicit(params ?? {}, options);
  if (method === 'sampling/createMessage') return sample(params ?? {}, options);
  return { error: { code: RPC.methodNotFound, message: `Wardrik does not serve ${method}` } };
}

/** The error answer for a question that names no call, or a call Wardrik is not waiting for. */
export function unrelatedQuestion(method: string, related: unknown): QuestionAnswer {
  const why =
    related === undefined
      ? `params._meta['${RELATED_CALL_META}'] is missing: Wardrik answers ${method} only during a tools/call it sent, named there (@wardrik/worker sets it from the MCP SDK's relatedRequestId: ask through the tool handler's extra.sendRequest, or pass { relatedRequestId: extra.requestId })`
      : `params._meta['${RELATED_CALL_META}']: no call with id ${JSON.stringify(related)} is waiting for its answer on this connection (it ended, or was never sent); Wardrik answers ${method} only during a tools/call it sent`;
  // Without a call named, Wardrik serves no such method; naming a call it is not waiting for is a bad param.
  return {
    error: { code: related === undefined ? RPC.methodNotFound : RPC.invalidParams, message: `${method}: ${why}` },
  };
}

/**
 * The asker of a call served for a run driven on another node: it refuses, since the person and
 * the model the call could ask are that node's.
 */
export const ELSEWHERE_ASKER: CallAsker = {
  requestInput: () => Promise.reject(new QuestionRefused(ELSEWHERE)),
  sample: () => Promise.reject(new QuestionRefused(ELSEWHERE)),
};

const ELSEWHERE =
  "the worker is connected to another node than the run; input can only be asked of a worker on the run's node";

/** A question the asker refuses outright (not a failure while asking). */
class QuestionRefused extends Error {}

async function elicit(params: Record<string, unknown>, options: QuestionOptions): Promise<QuestionAnswer> {
  const read = readElicitation(params);
  if ('problem' in read) return invalid('elicitation/create', read.problem);
  let reply: InputReply;
  try {
    reply = await options.asker.requestInput(read.question, { signal: options.signal });
  } catch (cause) {
    return failed('elicitation/create', 'the question could not be answered', cause);
  }
  const action = (reply as { action?: unknown } | null)?.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    return {
      error: {
        code: FAILED,
        message: `elicitation/create: the reply's action must be accept, decline or cancel, got ${describeValue(action)}`,
      },
    };
  }
  if (reply.action !== 'accept') return { result: { action: reply.action } };
  if (read.question.mode === 'url' || !read.check) return { result: { action: 'accept' } };
  const content = withDefaults(read.question.schema, reply.content ?? {});
  const problems = unfit(read.question.schema, read.check, content);
  if (problems.length > 0) {
    return {
      error: {
        code: FAILED,
        message: `elicitation/create: the reply does not fit the requested schema: ${problems.join('; ')}`,
      },
    };
  }
  return { result: { action: 'accept', content } };
}

async function sample(params: Record<string, unknown>, options: QuestionOptions): Promise<QuestionAnswer> {
  if (!options.sampling) {
    return {
      error: {
        code: REFUSED,
        message:
          "sampling/createMessage: sampling is not allowed for workers (set workers: { sampling: true } in createWardrik's options or the config to let workers ask the agent's model)",
      },
    };
  }
  const read = readSampling(params);
  if ('problem' in read) return invalid('sampling/createMessage', read.problem);
  try {
    const answer = await options.asker.sample(read.request, { signal: options.signal });
    return {
      result: {
        role: 'assistant',
        content: { type: 'text', text: answer.text },
        model: answer.model,
        stopReason: answer.stopReason,
      },
    };
  } catch (cause) {
    return failed('sampling/createMessage', "the agent's model could not be asked", cause);
  }
}

type Read<T> = T | { readonly problem: string };

/** An `elicitation/create`'s params as a question (and the form's schema compiled), or what is wrong. */
function readElicitation(
  params: Record<string, unknown>,
): Read<{ readonly question: InputQuestion; readonly check?: CompiledSchema }> {
  const { mode = 'form', message } = params;
  if (params['task'] !== undefined)
    return {
      problem:
        'params.task: Wardrik does not answer task-augmented elicitation/create (it declares no tasks for elicitation): send it without params.task',
    };
  if (typeof message !== 'string')
    return { problem: `params.message: expected a string, got ${describeType(message)}` };
  if (mode === 'url') {
    const { url, elicitationId } = params;
    if (typeof url !== 'string' || !URL.canParse(url))
      return { problem: `params.url: expected an absolute URL, got ${describeValue(url)}` };
    if (elicitationId !== undefined && typeof elicitationId !== 'string')
      return { problem: `params.elicitationId: expected a string, got ${describeType(elicitationId)}` };
    return {
      question: { mode: 'url', message, url, ...(elicitationId === undefined ? {} : { elicitationId }) },
    };
  }
  if (mode !== 'form') return { problem: `params.mode: expected 'form' or 'url', got ${describeValue(mode)}` };
  const schema = params['requestedSchema'];
  if (!isRecord(schema) || schema['type'] !== 'object' || !isRecord(schema['properties'])) {
    return { problem: "params.requestedSchema: expected an object schema ({ type: 'object', properties: { … } })" };
  }
  let check: CompiledSchema;
  try {
    check = compileSchema(schema);
  } catch (cause) {
    return { problem: `params.requestedSchema: ${cause instanceof Error ? cause.message : String(cause)}` };
  }
  return { question: { mode: 'form', message, schema }, check };
}

/** A `sampling/createMessage`'s params as a text-only request, or what is wrong. */
function readSampling(params: Record<string, unknown>): Read<{ readonly request: SampleRequest }> {
  const { messages, systemPrompt, maxTokens } = params;
  if (!Array.isArray(messages) || messages.length === 0)
    return {
      problem: `params.messages: expected a non-empty array, got ${Array.isArray(messages) ? 'an empty one' : describeType(messages)}`,
    };
  if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 1)
    return { problem: `params.maxTokens: expected a positive integer, got ${describeValue(maxTokens)}` };
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string')
    return { problem: `params.systemPrompt: expected a string, got ${describeType(systemPrompt)}` };
  const read: { role: 'user' | 'assistant'; text: string }[] = [];
  for (const [index, each] of messages.entries()) {
    const at = `params.messages[${index}]`;
    if (!isRecord(each) || (each['role'] !== 'user' && each['role'] !== 'assistant'))
      return { problem: `${at}.role: expected 'user' or 'assistant'` };
    const parts = Array.isArray(each['content']) ? each['content'] : [each['content']];
    const texts: string[] = [];
    for (const part of parts) {
      if (!isRecord(part) || part['type'] !== 'text' || typeof part['text'] !== 'string') {
        const type = isRecord(part) ? describeValue(part['type']) : describeType(part);
        return { problem: `${at}.content: Wardrik samples text only (type 'text' with a text), got ${type}` };
      }
      texts.push(part['text']);
    }
    read.push({ role: each['role'], text: texts.join('\n') });
  }
  return {
    request: { messages: read, maxTokens, ...(systemPrompt === undefined ? {} : { systemPrompt }) },
  };
}

/** `content` with each field it leaves out that has a default in `schema` given that default (SEP-1034). */
function withDefaults(
  schema: Readonly<Record<string, unknown>>,
  content: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const filled: Record<string, unknown> = {};
  const properties = schema['properties'] as Record<string, unknown>;
  for (const [name, field] of Object.entries(properties)) {
    if (!Object.hasOwn(content, name) && isRecord(field) && field['default'] !== undefined)
      filled[name] = field['default'];
  }
  return { ...filled, ...content };
}

/** What makes `content` not fit the form: fields it does not have, and the schema's complaints. */
function unfit(schema: Readonly<Record<string, unknown>>, check: CompiledSchema, content: unknown): string[] {
  if (!isRecord(content)) return [`content: expected an object, got ${describeType(content)}`];
  const fields = Object.keys(schema['properties'] as Record<string, unknown>);
  const problems = Object.keys(content)
    .filter((name) => !fields.includes(name))
    .map((name) => `content.${name}: not a field of the form (it has ${fields.join(', ') || 'none'})`);
  const checked = check.validate(content);
  if (checked instanceof Promise) return [...problems, 'content: the schema could not be checked at once'];
  if (!checked.ok)
    problems.push(
      // What was expected, never the value given: the reply is not sent, and the server must not see it.
      ...checked.issues.map(
        (issue) => `content${issue.path ? `.${issue.path}` : ''}: ${issue.message.replace(/, got [\s\S]*$/, '')}`,
      ),
    );
  return problems;
}

function invalid(method: string, problem: string): QuestionAnswer {
  return { error: { code: RPC.invalidParams, message: `${method}: ${problem}` } };
}

function failed(method: string, what: string, cause: unknown): QuestionAnswer {
  const reason = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof QuestionRefused) return { error: { code: REFUSED, message: `${method}: ${reason}` } };
  return { error: { code: FAILED, message: `${method}: ${what}: ${reason}` } };
}

function describeValue(value: unknown): string {
  return typeof value === 'string'
    ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)
    : describeType(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
