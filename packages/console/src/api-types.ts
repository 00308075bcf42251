/**
 * The `/v1` API's types, generated from the server's OpenAPI document by openapi-typescript.
 * Do not edit: run `npm run api-types -w @wardrik/console` (`packages/console/scripts/api-types.ts`).
 * `src/types.ts` names the ones the console uses.
 */

export interface paths {
  readonly '/v1/health': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Health */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The server is up (503 once its store failed: it takes no more work). */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/live': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Liveness: the process answers */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The process answers (a liveness probe: restart the process when it does not). */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/ready': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Readiness: migrated, runs recovered, store answering, not stopping */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The node takes work (a readiness probe). 503 while it starts (migrating, recovering runs), once it stops (draining), when its store failed or does not answer. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description Not ready: starting, stopping, or the store failed or does not answer; the detail says which. Or: The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/oauth/callback': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** OAuth callback: finishes a person's sign-in to a remote MCP server; the runs waiting for it go on */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly code?: string;
          readonly state?: string;
          readonly error?: string;
          readonly error_description?: string;
        };
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Signed in; a plain-text page the person can close. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description The authorization server refused the sign-in (error), or code or state is missing. Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description No run waits for a sign-in with this state (finished already, replaced by a newer one, or forged). */
        readonly 404: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/openapi.json': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** This document */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The OpenAPI document. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/agents': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** List the agents you may use */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Agents. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/runs': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** List runs you may read */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly status?: 'running' | 'parked' | 'completed' | 'failed' | 'cancelled';
          readonly agent?: string;
          readonly principal?: string;
          readonly limit?: number;
        };
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Runs, newest first. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['RunList'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    /** Start a run (with wait: true, answer once it ends or parks) */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            /** @description The agent to run. */
            readonly agent: string;
            /** @description The message for the agent. */
            readonly input: string;
            /** @description Answer only once the run ends or parks. */
            readonly wait?: boolean;
            /** @description Limits for this run, replacing the agent's where given. */
            readonly budget?: {
              readonly usd?: number;
              readonly tokens?: number;
              readonly steps?: number;
            };
            /** @description The session the run continues (its runs take turns; 409 while the one before is going). */
            readonly session?: string;
          };
        };
      };
      readonly responses: {
        /** @description The run was started (or, with wait, has ended or parked). */
        readonly 201: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/runs/{id}': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** A run with its journal, measures and labels */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The run. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['RunDetails'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/runs/{id}/events': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Follow a run's events live (Server-Sent Events; resume with Last-Event-ID) */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly after?: number;
        };
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description text/event-stream of run events; the id is the seq. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'text/event-stream': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description You have maxStreamsPerPrincipal event streams open (default 100); retry after Retry-After seconds (5). */
        readonly 429: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/runs/{id}/cancel': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    readonly get?: never;
    readonly put?: never;
    /** Cancel a run */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            readonly reason?: string;
          };
        };
      };
      readonly responses: {
        /** @description The run as it ended. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['RunResult'];
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/runs/{id}/labels/release': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    readonly get?: never;
    readonly put?: never;
    /** Release labels from a run (a person's journaled decision; the only way labels weaken) */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            /** @description The labels to release, e.g. ["outside"]. */
            readonly labels: readonly string[];
            /** @description Why they may be released; journaled with who did it. */
            readonly reason: string;
          };
        };
      };
      readonly responses: {
        /** @description The run with its labels now. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['RunResult'];
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/parks': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** List parks you may read */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly status?: 'open' | 'answered' | 'closed';
          readonly runId?: string;
          readonly limit?: number;
        };
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Parks, oldest first. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['ParkList'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/parks/{id}': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** A park: the call it holds, the run’s labels, why it waits */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The park. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['ParkRow'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/parks/{id}/answer': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    readonly get?: never;
    readonly put?: never;
    /** Answer a park (bound to the call by its callHash) */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            readonly decision:
              | {
                  /** @constant */
                  readonly type: 'answer';
                  readonly value: unknown;
                }
              | {
                  /** @constant */
                  readonly type: 'retry';
                  readonly note?: string;
                  /** @constant */
                  readonly previousHolderStopped?: true;
                }
              | {
                  /** @constant */
                  readonly type: 'fail';
                  readonly reason?: string;
                }
              | {
                  /** @constant */
                  readonly type: 'raise-budget';
                  readonly budget: {
                    readonly usd?: number;
                    readonly tokens?: number;
                    readonly steps?: number;
                  };
                }
              | {
                  /** @constant */
                  readonly type: 'approve';
                  readonly note?: string;
                  /** @enum {string} */
                  readonly remember?: 'run' | 'agent';
                }
              | {
                  /** @constant */
                  readonly type: 'deny';
                  readonly reason?: string;
                }
              | {
                  /** @constant */
                  readonly type: 'edit';
                  readonly arguments: {
                    readonly [key: string]: unknown;
                  };
                  readonly note?: string;
                }
              | {
                  /** @constant */
                  readonly type: 'stop';
                  readonly reason?: string;
                };
            /** @description The park.callHash you were shown: binds the answer to that exact call. */
            readonly callHash: string;
          };
        };
      };
      readonly responses: {
        /** @description The answer is on disk; the run resumes. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['ParkRow'];
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/workers': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** The cluster's connected workers: node, principal, tools (and those left out, with why), calls in flight */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Workers, of every node sharing the store. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['WorkerList'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/tokens': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** List tokens (never their secrets) */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Tokens and principals. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['TokenList'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    /** Create a token (and its principal if new); the token is shown only here */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            /** @description The principal: an existing one gets a new token; a new name creates it. */
            readonly name: string;
            /**
             * @description Required for a new principal.
             * @enum {string}
             */
            readonly role?: 'admin' | 'operator' | 'user' | 'worker';
            /** @enum {string} */
            readonly kind?: 'user' | 'service' | 'worker';
            /** @description The agents it may use; ['*'] for all. */
            readonly agents?: readonly string[];
            /** @description When the token stops working on its own (ms since the epoch, in the future). Default: never. */
            readonly expiresAt?: number;
          };
        };
      };
      readonly responses: {
        /** @description The token, shown once. */
        readonly 201: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['IssuedToken'];
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/tokens/{id}': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    readonly get?: never;
    readonly put?: never;
    readonly post?: never;
    /** Revoke a token */
    readonly delete: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Revoked. */
        readonly 204: {
          headers: {
            readonly [name: string]: unknown;
          };
          content?: never;
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/sessions': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** List sessions you may read */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly agent?: string;
          readonly limit?: number;
        };
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Sessions, most recently used first. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['SessionList'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    /** Start a session: a conversation with an agent, whose runs take turns and share history and state */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            /** @description The agent the session talks to. */
            readonly agent: string;
            /** @description An id of your choosing (1–128 of A–Z a–z 0–9 _ - .). */
            readonly id?: string;
          };
        };
      };
      readonly responses: {
        /** @description The session. */
        readonly 201: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['SessionRow'];
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/sessions/{id}': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** A session: its runs, its latest messages (?messages=N, default 200; earlierMessages says if there are more) and the state its next run reads */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly messages?: number;
        };
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The session. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['SessionDetails'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    /** Delete a session and its state (its runs and their journals stay) */
    readonly delete: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Deleted. */
        readonly 204: {
          headers: {
            readonly [name: string]: unknown;
          };
          content?: never;
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description Its run is still going (running or parked). */
        readonly 409: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/sessions/{id}/state': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    readonly get?: never;
    readonly put?: never;
    /** Change a session's state as a person (kept with who and why; values set so carry no labels) */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            /** @description New JSON values by key (cart, user:name, app:flags). */
            readonly set?: {
              readonly [key: string]: unknown;
            };
            /** @description Keys to delete. */
            readonly delete?: readonly string[];
            /** @description Why; kept with the change and who made it. */
            readonly reason: string;
          };
        };
      };
      readonly responses: {
        /** @description The session with its state now. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['SessionDetails'];
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/sessions/{id}/memory': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    readonly get?: never;
    readonly put?: never;
    /** Add what was said in a session to memory (each message with the labels of its run; again: only what is new) */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description How many memories were new: { added }. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/memory': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Search memories of earlier sessions (a principal’s, in an agent’s app), best match first, each with its labels */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly agent?: string;
          readonly query?: string;
          readonly principal?: string;
          readonly limit?: number;
        };
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description { memories: [{ id, text, role, labels, sessionId, runId, at, score }] } */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/sessions/{id}/artifacts': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** List the artifacts of a session and of its principal (user: names): the latest version of each */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description { artifacts: [{ name, version, mediaType, size, labels, savedAt, savedBy }] } */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/sessions/{id}/artifacts/{name}': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Download an artifact (the latest version, or ?version=N): its bytes, with its media type */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly version?: number;
        };
        readonly header?: never;
        readonly path: {
          readonly id: string;
          readonly name: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The bytes; wardrik-artifact-version and wardrik-labels headers. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly '*/*': string;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description No such session, artifact or version. */
        readonly 404: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    /** Upload a new version of an artifact: the body is its bytes, Content-Type its media type */
    readonly post: {
      readonly parameters: {
        readonly query?: {
          readonly labels?: string;
        };
        readonly header?: never;
        readonly path: {
          readonly id: string;
          readonly name: string;
        };
        readonly cookie?: never;
      };
      /** @description The artifact’s bytes; Content-Type is its media type (type/subtype). */
      readonly requestBody: {
        readonly content: {
          readonly '*/*': string;
        };
      };
      readonly responses: {
        /** @description The version saved: { name, version, mediaType, size, labels, savedAt, savedBy }. */
        readonly 201: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A name that is not a file name (a path, control characters), a media type that is not type/subtype, or bad labels. Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description Over artifacts.maxBytes (default 10 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description No Content-Type. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    /** Delete every version of an artifact */
    readonly delete: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
          readonly name: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description Deleted. */
        readonly 204: {
          headers: {
            readonly [name: string]: unknown;
          };
          content?: never;
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description No such session or artifact. */
        readonly 404: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/sessions/{id}/artifacts/{name}/versions': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Every version of an artifact, oldest first */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
          readonly name: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description { versions: [{ name, version, mediaType, size, labels, savedAt, savedBy }] } */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description No such session or artifact. */
        readonly 404: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/runs/purge': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    readonly get?: never;
    readonly put?: never;
    /** Purge runs last written before a time: ended and/or parked ones (admins only) */
    readonly post: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody: {
        readonly content: {
          readonly 'application/json': {
            /** @description Purge runs last written before this: an ISO date (2026-01-01), date-time (2026-01-01T00:00:00Z) or ms since the epoch. */
            readonly before: string | number;
            /** @description Which runs: ended ones (completed, failed, cancelled) and/or parked ones. Running runs never are. */
            readonly statuses: readonly ('completed' | 'failed' | 'cancelled' | 'parked')[];
            /** @description Only this agent's runs. */
            readonly agent?: string;
          };
        };
      };
      readonly responses: {
        /** @description What was deleted: runs with their journals, parks and run artifacts. Never a running run, one a node holds now, or one a kept session holds. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': unknown;
          };
        };
        /** @description The body is not valid JSON, nests deeper than 64 levels, or a field is wrong (each named in errors). Or: A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is over bodyLimitBytes (config server.bodyLimitBytes; default 1 MiB). */
        readonly 413: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The body is not application/json. */
        readonly 415: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/runs/{id}/export': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** A run's journal as JSON lines: a first line with its row and parks, then each record */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path: {
          readonly id: string;
        };
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description application/x-ndjson. Line 1: { format: "wardrik-run-export", version: 1, exportedAt, run, parks }; then one { seq, record } a line, in order — enough to audit the run, or to rebuild it elsewhere. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'text/event-stream': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/me': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Who the token is: its principal, and which actions it may take (what the console offers) */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description The principal and, for each action, whether it may take it. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['Me'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/inbox': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Open parks you may read, newest first, paged (next: the cursor of the next page), each with its run (agent, principal, cost so far, labels) and the JSON Schema of the tool it holds when known */
    readonly get: {
      readonly parameters: {
        readonly query?: {
          readonly limit?: number;
          readonly after?: string;
        };
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description { items, next? }: items newest first; next is absent on the last page. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/json': components['schemas']['InboxPage'];
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
  readonly '/v1/inbox/events': {
    readonly parameters: {
      readonly query?: never;
      readonly header?: never;
      readonly path?: never;
      readonly cookie?: never;
    };
    /** Follow the inbox live (Server-Sent Events): ready once listening (then read /v1/inbox), park-opened (an inbox item), park-answered, run-ended (its open parks closed); across nodes on a shared store */
    readonly get: {
      readonly parameters: {
        readonly query?: never;
        readonly header?: never;
        readonly path?: never;
        readonly cookie?: never;
      };
      readonly requestBody?: never;
      readonly responses: {
        /** @description text/event-stream: ready, park-opened, park-answered, run-ended. */
        readonly 200: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'text/event-stream': unknown;
          };
        };
        /** @description A query parameter the route does not take (named in errors, with those it takes), one given twice, or a wrong value. */
        readonly 400: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 401: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly 403: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description You have maxStreamsPerPrincipal event streams open (default 100); retry after Retry-After seconds (5). */
        readonly 429: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description The server has maxConnections connections open (config server.maxConnections); retry after Retry-After seconds. Or (code store): its store failed, so it takes no more work until it is restarted. */
        readonly 503: {
          headers: {
            /** @description Seconds to wait before trying again. */
            readonly 'retry-after'?: number;
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
        /** @description A problem (RFC 9457) naming what is wrong. */
        readonly default: {
          headers: {
            readonly [name: string]: unknown;
          };
          content: {
            readonly 'application/problem+json': components['schemas']['Problem'];
          };
        };
      };
    };
    readonly put?: never;
    readonly post?: never;
    readonly delete?: never;
    readonly options?: never;
    readonly head?: never;
    readonly patch?: never;
    readonly trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    readonly Problem: {
      readonly type: string;
      readonly title: string;
      readonly status: number;
      readonly detail: string;
      readonly errors?: readonly {
        readonly path?: string;
        readonly message?: string;
      }[];
    };
    /** @description What was spent, by unit (usd, tokens, …). */
    readonly Measures: {
      readonly [key: string]: number;
    };
    /** @enum {string} */
    readonly RunStatus: 'running' | 'parked' | 'completed' | 'failed' | 'cancelled';
    /** @enum {string} */
    readonly ParkKind: 'tool' | 'approval' | 'in_doubt' | 'budget' | 'external' | 'input' | 'authorize';
    readonly Budget: {
      readonly usd?: number;
      readonly tokens?: number;
      readonly steps?: number;
    };
    readonly ParkedCall: {
      readonly callId: string;
      readonly name: string;
      readonly arguments: unknown;
      readonly idempotencyKey: string;
    };
    readonly CallHolder: {
      readonly node: string;
      readonly incarnation: string;
      readonly epoch: number;
      /** @description Milliseconds since the epoch. */
      readonly startedAt?: number;
    };
    readonly Park: {
      readonly id: string;
      readonly runId: string;
      readonly kind: components['schemas']['ParkKind'];
      readonly reason: string;
      readonly details?: unknown;
      readonly call?: components['schemas']['ParkedCall'];
      /** @description Labels, e.g. outside. */
      readonly labels: readonly string[];
      readonly measures?: components['schemas']['Measures'];
      /** @description What an answer must name: binds it to this exact call. */
      readonly callHash: string;
      readonly rule?: string;
      readonly holder?: components['schemas']['CallHolder'];
      readonly handle?: string;
      /** @description Milliseconds since the epoch. */
      readonly deadline?: number;
      /** @description Labels, e.g. outside. */
      readonly resultLabels?: readonly string[];
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
    };
    readonly ParkDecision:
      | {
          /** @constant */
          readonly type: 'answer';
          readonly value?: unknown;
          /** @description Labels, e.g. outside. */
          readonly labels?: readonly string[];
          readonly measures?: components['schemas']['Measures'];
        }
      | {
          /** @constant */
          readonly type: 'retry';
          readonly note?: string;
          /** @constant */
          readonly previousHolderStopped?: true;
        }
      | {
          /** @constant */
          readonly type: 'fail';
          readonly reason?: string;
          /** @description Labels, e.g. outside. */
          readonly labels?: readonly string[];
          readonly measures?: components['schemas']['Measures'];
        }
      | {
          /** @constant */
          readonly type: 'approve';
          readonly note?: string;
          /** @enum {string} */
          readonly remember?: 'run' | 'agent';
        }
      | {
          /** @constant */
          readonly type: 'deny';
          readonly reason?: string;
        }
      | {
          /** @constant */
          readonly type: 'edit';
          readonly arguments: {
            readonly [key: string]: unknown;
          };
          readonly note?: string;
        }
      | {
          /** @constant */
          readonly type: 'raise-budget';
          readonly budget: components['schemas']['Budget'];
        }
      | {
          /** @constant */
          readonly type: 'stop';
          readonly reason?: string;
        };
    readonly ParkRow: {
      readonly id: string;
      readonly runId: string;
      readonly kind: components['schemas']['ParkKind'];
      readonly reason: string;
      readonly details?: unknown;
      readonly call?: components['schemas']['ParkedCall'];
      /** @description Labels, e.g. outside. */
      readonly labels: readonly string[];
      readonly measures?: components['schemas']['Measures'];
      /** @description What an answer must name: binds it to this exact call. */
      readonly callHash: string;
      readonly rule?: string;
      readonly holder?: components['schemas']['CallHolder'];
      readonly handle?: string;
      /** @description Milliseconds since the epoch. */
      readonly deadline?: number;
      /** @description Labels, e.g. outside. */
      readonly resultLabels?: readonly string[];
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
      /** @enum {string} */
      readonly status: 'open' | 'answered' | 'closed';
      readonly decision?: components['schemas']['ParkDecision'];
      readonly answeredBy?: string;
      /** @description Milliseconds since the epoch. */
      readonly answeredAt?: number;
    };
    readonly Answer:
      | {
          /** @constant */
          readonly type: 'ok';
          readonly value?: unknown;
          readonly measures: components['schemas']['Measures'];
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
        }
      | {
          /** @constant */
          readonly type: 'error';
          readonly reason: string;
          readonly issues?: readonly {
            readonly path: string;
            readonly message: string;
          }[];
          readonly code?: string;
          readonly measures: components['schemas']['Measures'];
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
        }
      | {
          /** @constant */
          readonly type: 'park';
          readonly reason: string;
          readonly details?: unknown;
          readonly external?: {
            readonly handle: string;
            readonly deadlineMs?: number;
          };
          readonly measures: components['schemas']['Measures'];
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
        };
    readonly ModelToolCall: {
      readonly callId: string;
      readonly modelCallId?: string;
      readonly name: string;
      readonly arguments: unknown;
      readonly invalidArguments?: string;
    };
    readonly Message:
      | {
          /** @constant */
          readonly role: 'user';
          readonly content: string;
        }
      | {
          /** @constant */
          readonly role: 'assistant';
          readonly text: string;
          readonly toolCalls: readonly components['schemas']['ModelToolCall'][];
        }
      | {
          /** @constant */
          readonly role: 'tool';
          readonly callId: string;
          readonly modelCallId?: string;
          readonly name: string;
          readonly content?: unknown;
          readonly isError: boolean;
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
        };
    readonly StateWrite: {
      readonly key: string;
      readonly value?: unknown;
      /** @constant */
      readonly deleted?: true;
      /** @description Labels, e.g. outside. */
      readonly labels: readonly string[];
    };
    readonly JournalRecord:
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'run-started';
          readonly agent: string;
          readonly principal: string;
          readonly input: string;
          readonly budget: components['schemas']['Budget'];
          readonly maxSteps: number;
          readonly app?: string;
          readonly session?: string;
          readonly history?: readonly components['schemas']['Message'][];
          /** @description Labels, e.g. outside. */
          readonly labels?: readonly string[];
          readonly parent?: {
            readonly runId: string;
            readonly callId: string;
          };
          readonly state?: readonly components['schemas']['StateWrite'][];
          readonly trace?: {
            readonly [key: string]: string;
          };
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'model-step';
          readonly step: number;
          readonly model: string;
          readonly text: string;
          readonly toolCalls: readonly components['schemas']['ModelToolCall'][];
          readonly usage: {
            readonly inputTokens: number;
            readonly outputTokens: number;
            readonly cachedInputTokens?: number;
            readonly cacheWriteInputTokens?: number;
          };
          readonly measures: components['schemas']['Measures'];
          /** @constant */
          readonly truncated?: true;
          readonly tools?: readonly string[];
          /** @description Labels, e.g. outside. */
          readonly labels?: readonly string[];
          readonly unavailable?: readonly {
            readonly toolset: string;
            readonly reason: string;
          }[];
          readonly agent?: string;
          /** @enum {string} */
          readonly callback?: 'beforeModel' | 'afterModel';
          readonly outputRejected?: string;
          readonly unpinned?: readonly {
            readonly source: string;
            readonly tool: string;
            readonly hash?: string;
            /** @constant */
            readonly changed?: true;
          }[];
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'call-changed';
          readonly callId: string;
          readonly arguments: unknown;
          /** @constant */
          readonly by: 'beforeTool';
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'call-started';
          readonly callId: string;
          readonly name: string;
          readonly arguments: unknown;
          readonly idempotencyKey: string;
          readonly repeatable: boolean;
          readonly attempt: number;
          readonly rule?: string;
          /** @description Labels, e.g. outside. */
          readonly labels?: readonly string[];
          readonly holder?: components['schemas']['CallHolder'];
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'call-answered';
          readonly callId: string;
          readonly answer: components['schemas']['Answer'];
          readonly attempts: number;
          readonly rule?: string;
          readonly state?: readonly components['schemas']['StateWrite'][];
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'agent-transferred';
          readonly callId: string;
          readonly from: string;
          readonly to: string;
          readonly reason?: string;
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'child-run-started';
          readonly callId: string;
          readonly childRunId: string;
          readonly agent: string;
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'run-parked';
          readonly park: components['schemas']['Park'];
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'input-requested';
          readonly park: components['schemas']['Park'];
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'input-withdrawn';
          readonly parkId: string;
          readonly reason: string;
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'park-answered';
          readonly parkId: string;
          readonly decision: components['schemas']['ParkDecision'];
          readonly by: string;
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'labels-released';
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
          readonly by: string;
          readonly reason: string;
        }
      | {
          /** @description The journal format version. */
          readonly v: number;
          /** @description Milliseconds since the epoch. */
          readonly at: number;
          /** @constant */
          readonly type: 'run-ended';
          /** @enum {string} */
          readonly status: 'completed' | 'failed' | 'cancelled';
          readonly output?: string;
          readonly error?: string;
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
          readonly measures: components['schemas']['Measures'];
          readonly state?: readonly components['schemas']['StateWrite'][];
          readonly guardrail?: {
            readonly name: string;
            /** @enum {string} */
            readonly stage: 'input' | 'output';
            readonly reason: string;
          };
        };
    readonly StoredRecord: {
      readonly runId: string;
      readonly seq: number;
      readonly record: components['schemas']['JournalRecord'];
    };
    readonly RunRow: {
      readonly id: string;
      readonly agent: string;
      readonly principal: string;
      readonly status: components['schemas']['RunStatus'];
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
      /** @description Milliseconds since the epoch. */
      readonly updatedAt: number;
      readonly measures: components['schemas']['Measures'];
      /** @description Labels, e.g. outside. */
      readonly labels: readonly string[];
      readonly output?: string;
      readonly error?: string;
      /** @description Why this Wardrik could not load the run's journal, when it could not. */
      readonly attention?: string;
    };
    readonly RunDetails: {
      readonly id: string;
      readonly agent: string;
      readonly principal: string;
      readonly status: components['schemas']['RunStatus'];
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
      /** @description Milliseconds since the epoch. */
      readonly updatedAt: number;
      readonly measures: components['schemas']['Measures'];
      /** @description Labels, e.g. outside. */
      readonly labels: readonly string[];
      readonly output?: string;
      readonly error?: string;
      /** @description Why this Wardrik could not load the run's journal, when it could not. */
      readonly attention?: string;
      readonly journal: readonly components['schemas']['StoredRecord'][];
    };
    readonly RunResult: {
      readonly runId: string;
      readonly status: components['schemas']['RunStatus'];
      readonly output?: string;
      readonly error?: string;
      /** @description Labels, e.g. outside. */
      readonly labels: readonly string[];
      readonly measures: components['schemas']['Measures'];
      /** @description The open parks, when parked. */
      readonly parks: readonly components['schemas']['ParkRow'][];
    };
    readonly RunList: {
      readonly runs: readonly components['schemas']['RunRow'][];
    };
    readonly ParkList: {
      readonly parks: readonly components['schemas']['ParkRow'][];
    };
    readonly Principal: {
      readonly id: string;
      readonly name: string;
      /** @enum {string} */
      readonly kind: 'user' | 'service' | 'worker';
      /** @enum {string} */
      readonly role: 'admin' | 'operator' | 'user' | 'worker';
      /** @description The agents it may run, read or serve; ['*'] for all. */
      readonly agents: readonly string[];
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
    };
    /** @enum {string} */
    readonly Action:
      | 'agents.list'
      | 'run.start'
      | 'run.read'
      | 'run.cancel'
      | 'park.read'
      | 'park.answer'
      | 'labels.release'
      | 'state.edit'
      | 'app-state.edit'
      | 'tokens.manage'
      | 'workers.list';
    readonly Me: {
      readonly principal: {
        readonly id: string;
        readonly name: string;
        /** @enum {string} */
        readonly kind: 'user' | 'service' | 'worker';
        /** @enum {string} */
        readonly role: 'admin' | 'operator' | 'user' | 'worker';
        /** @description The agents it may run, read or serve; ['*'] for all. */
        readonly agents: readonly string[];
      };
      /** @description For each action, whether the token may take it. */
      readonly may: {
        readonly 'agents.list': boolean;
        readonly 'run.start': boolean;
        readonly 'run.read': boolean;
        readonly 'run.cancel': boolean;
        readonly 'park.read': boolean;
        readonly 'park.answer': boolean;
        readonly 'labels.release': boolean;
        readonly 'state.edit': boolean;
        readonly 'app-state.edit': boolean;
        readonly 'tokens.manage': boolean;
        readonly 'workers.list': boolean;
      };
    };
    readonly TokenInfo: {
      readonly id: string;
      readonly principalId: string;
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
      /** @description Milliseconds since the epoch. */
      readonly revokedAt?: number;
      /** @description When it stops working on its own; none: it works until revoked. */
      readonly expiresAt?: number;
    };
    readonly TokenList: {
      readonly tokens: readonly components['schemas']['TokenInfo'][];
      readonly principals: readonly components['schemas']['Principal'][];
    };
    readonly IssuedToken: {
      /** @description The secret, shown only here. */
      readonly token: string;
      readonly tokenId: string;
      readonly principal: components['schemas']['Principal'];
      /** @description Milliseconds since the epoch. */
      readonly expiresAt?: number;
    };
    readonly WorkerInfo: {
      readonly definitions: readonly {
        readonly name: string;
        readonly hash: string;
        /** @enum {string} */
        readonly state: 'pinned' | 'unpinned' | 'changed' | 'trusted';
        readonly definition: {
          readonly name: string;
          readonly title?: string;
          readonly description?: string;
          readonly inputSchema: unknown;
          readonly outputSchema?: unknown;
          readonly annotations?: unknown;
        };
      }[];
      readonly id: string;
      readonly principal: string;
      readonly node: string;
      /** @description Milliseconds since the epoch. */
      readonly connectedAt: number;
      readonly tools: readonly string[];
      readonly modelNames: {
        readonly [key: string]: string;
      };
      readonly rejected: readonly {
        readonly name: string;
        readonly reason: string;
      }[];
      readonly inflight: number;
    };
    readonly WorkerList: {
      readonly workers: readonly components['schemas']['WorkerInfo'][];
    };
    readonly SessionRow: {
      readonly id: string;
      readonly agent: string;
      readonly app: string;
      readonly principal: string;
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
      /** @description Milliseconds since the epoch. */
      readonly updatedAt: number;
      readonly runs: number;
      readonly lastRun?: string;
    };
    readonly SessionList: {
      readonly sessions: readonly components['schemas']['SessionRow'][];
    };
    readonly SessionMessage:
      | {
          /** @constant */
          readonly role: 'user';
          readonly content: string;
          readonly runId: string;
        }
      | {
          /** @constant */
          readonly role: 'assistant';
          readonly text: string;
          readonly toolCalls: readonly components['schemas']['ModelToolCall'][];
          readonly runId: string;
        }
      | {
          /** @constant */
          readonly role: 'tool';
          readonly callId: string;
          readonly modelCallId?: string;
          readonly name: string;
          readonly content?: unknown;
          readonly isError: boolean;
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
          readonly runId: string;
        };
    readonly SessionDetails: {
      readonly id: string;
      readonly agent: string;
      readonly app: string;
      readonly principal: string;
      /** @description Milliseconds since the epoch. */
      readonly createdAt: number;
      /** @description Milliseconds since the epoch. */
      readonly updatedAt: number;
      readonly runs: number;
      readonly lastRun?: string;
      readonly runList: readonly components['schemas']['RunRow'][];
      readonly messages: readonly components['schemas']['SessionMessage'][];
      readonly earlierMessages: boolean;
      readonly state: readonly {
        readonly scope: string;
        readonly key: string;
        readonly value?: unknown;
        /** @description Labels, e.g. outside. */
        readonly labels: readonly string[];
        /** @description Milliseconds since the epoch. */
        readonly updatedAt: number;
        readonly updatedBy: string;
      }[];
      readonly edits: readonly {
        readonly id: number;
        readonly writes: readonly {
          readonly scope: string;
          readonly key: string;
          readonly value?: unknown;
          /** @constant */
          readonly deleted?: true;
          /** @description Labels, e.g. outside. */
          readonly labels: readonly string[];
        }[];
        readonly by: string;
        readonly reason: string;
        /** @description Milliseconds since the epoch. */
        readonly at: number;
      }[];
    };
    readonly InboxItem: {
      readonly park: components['schemas']['ParkRow'];
      readonly run: {
        readonly id: string;
        readonly agent: string;
        readonly principal: string;
        readonly status: components['schemas']['RunStatus'];
        readonly measures: components['schemas']['Measures'];
        /** @description Labels, e.g. outside. */
        readonly labels: readonly string[];
      };
      /** @description The JSON Schema of the tool the park holds. */
      readonly schema?: {
        readonly [key: string]: unknown;
      };
    };
    readonly InboxPage: {
      readonly items: readonly components['schemas']['InboxItem'][];
      /** @description The cursor of the next page (absent on the last page). */
      readonly next?: string;
    };
    readonly NodeStoppingEvent: {
      /** @constant */
      readonly type: 'node-stopping';
      readonly reason: string;
    };
    readonly JournaledEvent: {
      /** @enum {string} */
      readonly type:
        | 'run-started'
        | 'model-step'
        | 'call-changed'
        | 'call-started'
        | 'call-answered'
        | 'agent-transferred'
        | 'child-run-started'
        | 'run-parked'
        | 'input-requested'
        | 'input-withdrawn'
        | 'park-answered'
        | 'labels-released'
        | 'run-ended';
      readonly runId: string;
      readonly seq: number;
      readonly record: components['schemas']['JournalRecord'];
    };
    readonly TextDeltaEvent: {
      /** @constant */
      readonly type: 'text-delta';
      readonly runId: string;
      readonly seq: number;
      readonly step: number;
      readonly delta: string;
    };
    readonly ModelRetryEvent: {
      /** @constant */
      readonly type: 'model-retry';
      readonly runId: string;
      readonly seq: number;
      readonly step: number;
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: string;
    };
    readonly CallProgressEvent: {
      /** @constant */
      readonly type: 'call-progress';
      readonly runId: string;
      readonly seq: number;
      readonly callId: string;
      readonly name: string;
      readonly progress: number;
      readonly total?: number;
      readonly message?: string;
    };
    readonly InboxReady: Record<string, never>;
    readonly InboxParkAnswered: {
      readonly parkId: string;
      readonly runId: string;
      readonly decision: components['schemas']['ParkDecision'];
      readonly by: string;
      /** @description Milliseconds since the epoch. */
      readonly at: number;
    };
    readonly InboxRunEnded: {
      readonly runId: string;
      readonly status: components['schemas']['RunStatus'];
    };
    readonly InboxParkClosed: {
      readonly parkId: string;
      readonly runId: string;
      readonly reason: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
