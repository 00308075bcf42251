import { WardrikError } from '@wardrik/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

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

  constructor(
    status: ContentfulStatusCode,
    code: string,
    title: string,
    detail: string,
    errors?: readonly FieldProblem[],
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.title = title;
    this.errors = errors;
  }
}

const statusByCode: Record<string, ContentfulStatusCode> = {
  agent_not_found: 404,
  run_not_found: 404,
  park_not_found: 404,
  token_not_found: 404,
  park_already_answered: 409,
  stale_park_answer: 409,
  run_ended: 409,
  invalid_park_answer: 400,
  invalid_input: 400,
  agent_definition: 400,
};

/** The problem response for anything a handler threw. Unknown errors are 500s that say little. */
export function problemResponse(c: Context, thrown: unknown): Response {
  if (thrown instanceof ApiProblem) {
    return send(c, thrown.status, thrown.code, thrown.title, thrown.message, thrown.errors);
  }
  if (WardrikError.isInstance(thrown)) {
    const status = statusByCode[thrown.code] ?? 500;
    return send(c, status, thrown.code, titleOf(thrown.code), status === 500 ? 'internal error' : thrown.message);
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
  const body: Problem = {
    type: `https://wardrik.dev/problems/${code}`,
    title,
    status,
    detail,
    ...(errors ? { errors } : {}),
  };
  return c.body(JSON.stringify(body), status, { 'content-type': 'application/problem+json' });
}

function titleOf(code: string): string {
  const text = code.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
