import { MAX_JSON_DEPTH } from '@wardrik/core';
import type { z } from 'zod';
import { responseSchemaId, responseSchemas } from './response-schemas.js';
import { documentedPath, type Route } from './routes.js';
import { zod } from './zod.js';

/** The body of every problem answer (RFC 9457), as `#/components/schemas/Problem`. */
const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

const problem = {
  description: 'A problem (RFC 9457) naming what is wrong.',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};

/** A problem answer with its own description (and `Retry-After` for 429 and 503). */
function problemAnswer(status: number, description: string): Record<string, unknown> {
  const retryAfter = {
    'retry-after': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
  };
  return { ...problem, description, ...(status === 429 || status === 503 ? { headers: retryAfter } : {}) };
}

/** What any route may answer, whatever it does: the server is at its connection limit. */
const SERVER_FULL =
  'The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. ' +
  'Or (code store): its store failed, so it takes no more work until it is restarted.';

/** What any route may answer about its query string (a route with none takes no parameters). */
const QUERY_PROBLEM =
  'A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value.';

/** What a route that reads a JSON body may answer. */
const BODY_PROBLEMS: Readonly<Record<number, string>> = {
  400: `The body is not valid JSON, nests deeper than ${MAX_JSON_DEPTH} levels, or a field is wrong (each named in errors).`,
  413: 'The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB).',
  415: 'The body is not application/json.',
};

/**
 * The OpenAPI 3.1 document of the API, built from the same route table and zod schemas the
 * server checks requests with, so the two can't drift apart.
 */
export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = documentedPath(route.path);
    const parameters: unknown[] = [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (route.query) {
      const schema = zod().toJSONSchema(route.query, { io: 'input' }) as { properties?: Record<string, unknown> };
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: 'query', required: false, schema: property });
      }
    }
    const responses: Record<string, unknown> = {
      [route.success.status]: {
        description: route.success.description,
        ...(route.success.status === 204
          ? {}
          : route.success.binary
            ? { content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }
            : { content: successContent(route.success) }),
      },
      default: problem,
    };
    if (route.authenticated) {
      responses['401'] = problem;
      responses['403'] = problem;
    }
    const ownFull = route.problems?.[503];
    const full = ownFull === undefined ? SERVER_FULL : `${ownFull} Or: ${SERVER_FULL}`;
    const ownBad = route.problems?.[400] ?? (route.body ? BODY_PROBLEMS[400] : undefined);
    const bad = ownBad === undefined ? QUERY_PROBLEM : `${ownBad} Or: ${QUERY_PROBLEM}`;
    const problems = { ...(route.body ? BODY_PROBLEMS : {}), ...route.problems, 400: bad, 503: full };
    for (const [status, description] of Object.entries(problems)) {
      responses[status] = problemAnswer(Number(status), description);
    }
    paths[path] = {
      ...paths[path],
      [route.method]: {
        summary: route.summary,
        ...(parameters.length ? { parameters } : {}),
        ...(route.body
          ? {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: zod().toJSONSchema(route.body, { io: 'input' }) } },
              },
            }
          : {}),
        ...(route.rawBody
          ? {
              requestBody: {
                required: true,
                description: route.rawBody,
                content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
              },
            }
          : {}),
        ...(route.authenticated ? { security: [{ bearer: [] }] } : { security: [] }),
        responses,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Wardrik', version: '0.1.0', description: 'Durable runs of agents that take real actions.' },
    components: {
      schemas: { Problem: PROBLEM_SCHEMA, ...componentSchemas() },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    paths,
  };
}

/** Where a response schema is in the document. */
function schemaRef(schema: z.ZodType): { $ref: string } {
  return { $ref: `#/components/schemas/${responseSchemaId(schema)}` };
}

/**
 * A success answer's content: JSON (of its schema, when it names one), or an event stream whose
 * events' data are listed, by event name, in `x-events` (OpenAPI 3.1 has no word for them).
 */
function successContent(success: Route['success']): Record<string, unknown> {
  if (success.stream) {
    const events = Object.entries(success.events ?? {}).map(([name, schema]) => [name, schemaRef(schema)]);
    return { 'text/event-stream': events.length ? { 'x-events': Object.fromEntries(events) } : {} };
  }
  return { 'application/json': success.schema ? { schema: schemaRef(success.schema) } : {} };
}

/** Every response schema as JSON Schema, by id, each referring to the others by `#/components/schemas/<id>`. */
function componentSchemas(): Record<string, unknown> {
  const { schemas } = zod().toJSONSchema(responseSchemas().registry, {
    io: 'output',
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema]),
  );
}
