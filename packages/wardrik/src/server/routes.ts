import type { Context } from 'hono';
import type { z } from 'zod';
import type { Principal } from '../auth/types.js';

/** What a handler gets: the request context and who made it (undefined on public routes). */
export interface RouteContext {
  readonly c: Context;
  readonly principal: Principal;
  /** The id of the token the request came with ('' on public routes). */
  readonly tokenId: string;
}

/** One API route: its shape is used both to check requests and to write the OpenAPI document. */
export interface Route {
  readonly method: 'get' | 'post' | 'delete';
  /** Hono path, e.g. `/v1/runs/:id`. */
  readonly path: string;
  readonly summary: string;
  /** Whether it needs a bearer token. */
  readonly authenticated: boolean;
  readonly body?: z.ZodType;
  readonly query?: z.ZodType;
  /** The body is raw bytes (not JSON): what they are, for the document. */
  readonly rawBody?: string;
  /** The success status and what it returns, for the document. */
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly stream?: boolean;
    /** It answers with bytes of the media type they were saved with. */
    readonly binary?: boolean;
  };
  /** Problem answers of this route beyond those every route may give, by status, for the document. */
  readonly problems?: Readonly<Record<number, string>>;
  readonly handle: (context: RouteContext) => Promise<Response> | Response;
}
