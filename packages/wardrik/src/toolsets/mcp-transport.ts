import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpOAuthSession } from './mcp-oauth-session.js';
import { McpStdioTransport } from './mcp-stdio-transport.js';
import type { McpServerSpec } from './mcp-toolset-options.js';

/** An SDK transport to one server, and what it can tell about the server's end. */
export interface ServerTransport {
  readonly transport: Transport;
  /** The child process's id (stdio), once started. */
  readonly pid: () => number | undefined;
  /** The last lines the child wrote to stderr (stdio), for error messages; empty if none. */
  readonly stderrTail: () => string;
  /** Ends the HTTP session politely (best effort); nothing for stdio. */
  readonly terminate: () => Promise<void>;
  /** Stops the server's process (stdio) and resolves once it has exited; nothing for HTTP. */
  readonly stop: () => Promise<void>;
}

/**
 * A fresh SDK transport for `server`: Streamable HTTP with the given headers (and `oauth`, the
 * SDK's auth provider, which signs requests and signs in on a 401), or a child process
 * whose stderr is collected (its last lines explain a failed start or an exit), stopped at once
 * when `signal` aborts (see `McpStdioTransport`).
 */
export function createServerTransport(
  server: McpServerSpec,
  signal: AbortSignal,
  oauth?: McpOAuthSession,
): ServerTransport {
  if (server.type === 'http') {
    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: { ...server.headers } },
      ...(oauth === undefined ? {} : { authProvider: oauth, fetch: oauth.observe((url, init) => fetch(url, init)) }),
      reconnectionOptions: {
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 5_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    });
    return {
      transport,
      pid: () => undefined,
      stderrTail: () => '',
      terminate: async () => {
        if (transport.sessionId !== undefined) await transport.terminateSession();
      },
      stop: async () => {},
    };
  }
  const transport = new McpStdioTransport({
    command: server.command,
    args: server.args,
    ...(server.env === undefined ? {} : { env: server.env }),
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    signal,
  });
  return {
    transport,
    pid: () => transport.pid,
    stderrTail: () => transport.stderrTail,
    terminate: async () => {},
    stop: () => transport.close(),
  };
}
