import { CliError, EXIT } from './cli-error.js';
import type { Connection } from './connection.js';

/** An RFC 9457 problem, as the server sends it. */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
}

/** The server answered with an error: its status and problem. Reported as exit code 1. */
export class ServerProblem extends CliError {
  readonly status: number;
  readonly problem: Problem;

  constructor(status: number, problem: Problem, message: string) {
    super(EXIT.failed, message);
    this.status = status;
    this.problem = problem;
  }
}

/**
 * A small client for the Wardrik HTTP API. Errors are clear `CliError`s: a problem+json answer
 * becomes a `ServerProblem` carrying its detail; a server that can't be reached, exit code 4
 * naming the URL.
 *
 * @example
 * ```ts
 * const client = new WardrikClient({ url: 'http://127.0.0.1:4000', token, tokenSource: '--token' })
 * const { runs } = await client.request<{ runs: RunRow[] }>('GET', '/v1/runs?status=parked')
 * ```
 */
export class WardrikClient {
  readonly connection: Connection;

  constructor(connection: Connection) {
    this.connection = connection;
  }

  get url(): string {
    return this.connection.url;
  }

  /** Sends a JSON request and returns the JSON answer (undefined for 204). */
  async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const response = await this.send(path, {
      method,
      headers: {
        ...this.#authorization(),
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(EXIT.failed, `${method} ${path}: the server answered with something that is not JSON`);
    }
  }

  /** Opens a run's event stream (SSE), resuming after `lastEventId` if given. */
  async openEvents(runId: string, lastEventId: number, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const response = await this.send(`/v1/runs/${encodeURIComponent(runId)}/events`, {
      headers: {
        ...this.#authorization(),
        accept: 'text/event-stream',
        ...(lastEventId > 0 ? { 'last-event-id': String(lastEventId) } : {}),
      },
      signal,
    });
    if (!response.body) throw new CliError(EXIT.failed, `the event stream of run ${runId} has no body`);
    return response.body;
  }

  /** fetch, with a refused connection and an error answer turned into clear errors. */
  async send(path: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, init);
    } catch (thrown) {
      if (init.signal?.aborted) throw thrown;
      throw unreachable(this.url, thrown);
    }
    if (!response.ok) throw await this.#problem(response, `${init.method ?? 'GET'} ${path}`);
    return response;
  }

  #authorization(): Record<string, string> {
    const token = this.connection.token;
    return token === undefined ? {} : { authorization: `Bearer ${token}` };
  }

  async #problem(response: Response, what: string): Promise<ServerProblem> {
    const text = await response.text().catch(() => '');
    let problem: Problem = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null) problem = parsed as Problem;
    } catch {
      // Not JSON: say what we have.
    }
    const detail = problem.detail ?? (text.trim().slice(0, 200) || response.statusText);
    let message = `${problem.title ?? `${what} failed`} (${response.status}): ${detail}`;
    if (response.status === 401) message += `\n${this.#tokenHint()}`;
    return new ServerProblem(response.status, problem, message);
  }

  #tokenHint(): string {
    const source = this.connection.tokenSource;
    if (source === 'none') {
      return 'No token was given: pass --token or set WARDRIK_TOKEN (or run the CLI in the directory of the config `wardrik serve` uses: it saves the admin token in .wardrik/admin-token).';
    }
    return `The token came from ${source}.`;
  }
}

/** The error for a server that can't be reached (exit code 4), naming the URL and why. */
export function unreachable(url: string, thrown: unknown): CliError {
  const cause = (thrown as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (thrown instanceof Error ? thrown.message : String(thrown));
  return new CliError(
    EXIT.unreachable,
    `cannot reach the Wardrik server at ${url} (${why}). Is \`wardrik serve\` running there? Point --url or WARDRIK_URL at it.`,
    { cause: thrown },
  );
}
