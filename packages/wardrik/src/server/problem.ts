import { WardrikError } from '@wardrik/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** How long a client refused for a limit (429, 503) is told to wait before trying again, in seconds. */
export const RETRY_AFTER_SECONDS = 5;

/** One problem with a request field. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/** An RFC 9457 problem: what every error response of the API is. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldProblem[];
}

/** Thrown by handlers to answer with a problem. */
export class ApiProblem extends Error {
  readonly status: ContentfulStatusCode;
  readonly title: string;
  readonly errors: readonly FieldProblem[] | undefined;
  readonly code: string;
  /** Headers to answer with, e.g. `retry-after`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    title: string,
    detail: string,
    errors?: readonly FieldProblem[],
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.title = title;
    this.errors = errors;
    this.headers = headers;
  }
}

const statusByCode: Record<string, ContentfulStatusCode> = {
  agent_not_found: 404,
  run_not_found: 404,
  session_not_found: 404,
  artifact_not_found: 404,
  artifact_too_large: 413,
  session_busy: 409,
  park_not_found: 404,
  token_not_found: 404,
  park_already_answered: 409,
  stale_park_answer: 409,
  run_ended: 409,
  invalid_park_answer: 400,
  invalid_input: 400,
  agent_definition: 400,
  run_needs_attention: 409,
  store: 503,
  node_stopping: 503,
  // A remote MCP server's authorization server refused or failed to finish a sign-in.
  mcp_sign_in_failed: 502,
};

/** What a client is told when the store failed (its message names files: it stays in the server's log). */
export const STORE_FAILED =
  'the store failed, so this server takes no more work; it must be restarted to recover the runs';

/** The problem response for anything a handler threw. Unknown errors are 500s that say little. */
export function problemResponse(c: Context, thrown: unknown): Response {
  if (thrown instanceof ApiProblem) {
    for (const [name, value] of Object.entries(thrown.headers)) c.header(name, value);
    return send(c, thrown.status, thrown.code, thrown.title, thrown.message, thrown.errors);
  }
  if (WardrikError.isInstance(thrown)) {
    const status = statusByCode[thrown.code] ?? 500;
    const detail = status === 500 ? 'internal error' : thrown.code === 'store' ? STORE_FAILED : thrown.message;
    // A node stopping takes work again once restarted, and its peers take it now.
    if (thrown.code === 'node_stopping') c.header('retry-after', String(RETRY_AFTER_SECONDS));
    return send(c, status, thrown.code, titleOf(thrown.code), detail);
  }
  return send(c, 500, 'internal', 'Internal error', 'internal error');
}

/** Answers with a problem directly. */
export function send(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  title: string,
  detail: string,
  errors?: readonly FieldProblem[],
): Response {
  return c.body(problemJson(status, code, title, detail, errors), status, {
    'content-type': 'application/problem+json',
  });
}

/**
 * The JSON of a problem body, for answers written outside Hono (a refused upgrade, a full server).
 *
 * @example
 * ```ts
 * problemJson(503, 'server_full', 'Server full', 'the server has 1000 connections open') // '{"type":…}'
 * ```
 */
export function problemJson(
  status: number,
  code: string,
  title: string,
  detail: string,
  errors?: readonly FieldProblem[],
): string {
  const body: Problem = {
    type: `https://wardrik.dev/problems/${code}`,
    title,
    status,
    detail,
    ...(errors ? { errors } : {}),
  };
  return JSON.stringify(body);
}

function titleOf(code: string): string {
  const text = code.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
