import type { Context } from 'hono';
import type { z } from 'zod';
import type { Principal } from '../auth/types.js';

/** What a handler gets: the request context, who made it (undefined on public routes) and its query. */
export interface RouteContext<Query = Readonly<Record<string, unknown>>> {
  readonly c: Context;
  readonly principal: Principal;
  /** The id of the token the request came with ('' on public routes). */
  readonly tokenId: string;
  /**
   * The query string, checked against the route's `query` schema before the handler is called
   * (a route without one takes no parameters: any is refused with 400).
   */
  readonly query: Query;
}

/** The query string a route takes: an object of named parameters, each a string on the wire. */
export type QuerySchema = z.ZodObject;

/** One API route: its shape is used both to check requests and to write the OpenAPI document. */
export interface Route {
  readonly method: 'get' | 'post' | 'delete';
  /** Hono path, e.g. `/v1/runs/:id`. */
  readonly path: string;
  readonly summary: string;
  /** Whether it needs a bearer token. */
  readonly authenticated: boolean;
  readonly body?: z.ZodType;
  /** The query parameters it takes; none when absent. Any other parameter gets 400, naming it. */
  readonly query?: QuerySchema;
  /**
   * `ignored`: another party writes this route's query (an OAuth authorization server redirecting
   * a browser), so parameters it does not take are ignored rather than refused (RFC 6749 §4.1.2).
   */
  readonly otherParameters?: 'ignored';
  /** The body is raw bytes (not JSON): what they are, for the document. */
  readonly rawBody?: string;
  /** The success status and what it returns, for the document. */
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly stream?: boolean;
    /** It answers with bytes of the media type they were saved with. */
    readonly binary?: boolean;
    /** The JSON it answers with: one of `responseSchemas` (the document refers to it by its id). */
    readonly schema?: z.ZodType;
    /** For a stream: the data of each event it sends, by event name (each one of `responseSchemas`). */
    readonly events?: Readonly<Record<string, z.ZodType>>;
  };
  /** Problem answers of this route beyond those every route may give, by status, for the document. */
  readonly problems?: Readonly<Record<number, string>>;
  readonly handle: (context: RouteContext) => Promise<Response> | Response;
}

/** A route that takes a query, its handler given the query as its schema parses it. */
export type RouteWithQuery<S extends QuerySchema> = Omit<Route, 'query' | 'handle'> & {
  readonly query: S;
  readonly handle: (context: RouteContext<z.output<S>>) => Promise<Response> | Response;
};

/**
 * A route that takes a query string: its handler's `query` is typed by the schema, which the
 * server checks every request against before calling it.
 *
 * @example
 * ```ts
 * const listRuns = routeWithQuery({
 *   method: 'get', path: '/v1/runs', summary: 'List runs', authenticated: true,
 *   query: z.object({ limit: z.coerce.number().int().min(1).optional() }).strict(),
 *   success: { status: 200, description: 'Runs.' },
 *   handle: ({ c, query }) => c.json({ limit: query.limit ?? 50 }),
 * })
 * ```
 */
export function routeWithQuery<S extends QuerySchema>(route: RouteWithQuery<S>): Route {
  // Sound: the server hands `handle` only what `route.query` parsed (see `readQuery`).
  return route as unknown as Route;
}

/**
 * A route's path as the OpenAPI document and problems name it: `:id` becomes `{id}`.
 *
 * @example
 * ```ts
 * documentedPath('/v1/runs/:id/events') // '/v1/runs/{id}/events'
 * ```
 */
export function documentedPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
