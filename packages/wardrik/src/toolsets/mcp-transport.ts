import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerSpec } from './mcp-toolset-options.js';

/** How much of a child's stderr is kept, to say why it failed. */
const STDERR_TAIL_CHARACTERS = 1_000;

/** An SDK transport to one server, and what it can tell about the server's end. */
export interface ServerTransport {
  readonly transport: Transport;
  /** The child process's id (stdio), once started. */
  readonly pid: () => number | undefined;
  /** The last lines the child wrote to stderr (stdio), for error messages; empty if none. */
  readonly stderrTail: () => string;
  /** Ends the HTTP session politely (best effort); nothing for stdio. */
  readonly terminate: () => Promise<void>;
}

/**
 * A fresh SDK transport for `server`: Streamable HTTP with the given headers, or a child process
 * whose stderr is collected (its last lines explain a failed start or an exit).
 */
export function createServerTransport(server: McpServerSpec): ServerTransport {
  if (server.type === 'http') {
    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: { ...server.headers } },
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
    };
  }
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    ...(server.env === undefined ? {} : { env: { ...server.env } }),
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    stderr: 'pipe',
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARACTERS);
  });
  return {
    transport,
    pid: () => transport.pid ?? undefined,
    stderrTail: () => tail.trim(),
    terminate: async () => {},
  };
}
