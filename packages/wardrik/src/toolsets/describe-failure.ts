import type { McpServerSpec } from './mcp-toolset-options.js';

/** The SDK's JSON-RPC codes for a request that got no answer. */
export const CONNECTION_CLOSED = -32000;
export const REQUEST_TIMEOUT = -32001;

/**
 * A short, readable why for something the SDK or Node threw: a command not found, no answer in
 * time, a closed connection, a malformed answer (the first problem zod found), a failed fetch and
 * its cause.
 *
 * @example
 * ```ts
 * describeFailure(Object.assign(new Error('spawn nope ENOENT'), { code: 'ENOENT' }), spec) // 'command "nope" was not found (ENOENT)'
 * ```
 */
export function describeFailure(cause: unknown, server?: McpServerSpec): string {
  if (typeof cause === 'string') return cause;
  if (typeof cause !== 'object' || cause === null) return String(cause);
  const { code, message, issues, data } = cause as {
    code?: unknown;
    message?: unknown;
    issues?: unknown;
    data?: unknown;
  };
  if (server?.type === 'stdio' && code === 'ENOENT') {
    return `command ${JSON.stringify(server.command)} was not found (ENOENT)`;
  }
  if (server?.type === 'stdio' && code === 'EACCES') {
    return `command ${JSON.stringify(server.command)} may not be run (EACCES)`;
  }
  if (code === REQUEST_TIMEOUT) {
    const timeout = (data as { timeout?: unknown } | undefined)?.timeout;
    return typeof timeout === 'number' ? `no answer within ${timeout} ms` : 'no answer in time';
  }
  if (code === CONNECTION_CLOSED)
    return server?.type === 'stdio' ? 'the server process exited' : 'the connection closed';
  if (Array.isArray(issues) && issues.length > 0) {
    const first = issues[0] as { path?: unknown; message?: unknown };
    const path = Array.isArray(first.path) && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more problems)` : '';
    return `malformed answer: ${path}${String(first.message)}${more}`;
  }
  const text = typeof message === 'string' && message !== '' ? message : String(cause);
  const inner = (cause as { cause?: unknown }).cause;
  if (inner instanceof Error && inner.message !== '' && !text.includes(inner.message)) {
    return `${text} (${inner.message})`;
  }
  return text;
}
