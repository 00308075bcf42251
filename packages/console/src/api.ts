import type { Me } from './types';

/** An RFC 9457 problem as the API sends it. */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly errors?: readonly { readonly path: string; readonly message: string }[];
}

/** The API answered with an error (or could not be reached: status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** Says plainly what went wrong, with the status. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return `The server cannot be reached: ${error.message}`;
    const what =
      error.status === 401
        ? 'Not signed in'
        : error.status === 403
          ? 'Not allowed'
          : error.status === 409
            ? 'Conflict'
            : (error.problem.title ?? 'Error');
    const fields = (error.problem.errors ?? []).map((each) => `${each.path}: ${each.message}`).join('; ');
    return `${what} (${error.status}): ${error.message}${fields ? ` — ${fields}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Talks to the `/v1` API with the token in the Authorization header. */
export class Api {
  readonly token: string;
  /** Called when the server says the token is no good (401). */
  readonly onUnauthorized: () => void;

  constructor(token: string, onUnauthorized: () => void = () => {}) {
    this.token = token;
    this.onUnauthorized = onUnauthorized;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, accept: 'application/json', ...extra };
  }

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (thrown) {
      if (signal?.aborted) throw thrown;
      throw new ApiError(0, { detail: thrown instanceof Error ? thrown.message : String(thrown) });
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = { detail: text.slice(0, 500) };
    }
    if (!response.ok) {
      if (response.status === 401) this.onUnauthorized();
      throw new ApiError(response.status, (parsed ?? {}) as Problem);
    }
    return parsed as T;
  }

  get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', path, undefined, signal);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  me(): Promise<Me> {
    return this.get<Me>('/v1/me');
  }
}

/** A query string from the values that are set. */
export function query(values: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
