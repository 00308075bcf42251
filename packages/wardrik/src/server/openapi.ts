import { z } from 'zod';
import type { Route } from './routes.js';

const problem = {
  description: 'A problem (RFC 9457) naming what is wrong.',
  content: {
    'application/problem+json': {
      schema: {
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
      },
    },
  },
};

/**
 * The OpenAPI 3.1 document of the API, built from the same route table and zod schemas the
 * server checks requests with, so the two can't drift apart.
 */
export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (route.query) {
      const schema = z.toJSONSchema(route.query, { io: 'input' }) as { properties?: Record<string, unknown> };
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: 'query', required: false, schema: property });
      }
    }
    const responses: Record<string, unknown> = {
      [route.success.status]: {
        description: route.success.description,
        ...(route.success.status === 204
          ? {}
          : { content: { [route.success.stream ? 'text/event-stream' : 'application/json']: {} } }),
      },
      default: problem,
    };
    if (route.authenticated) {
      responses['401'] = problem;
      responses['403'] = problem;
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
                content: { 'application/json': { schema: z.toJSONSchema(route.body, { io: 'input' }) } },
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
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
