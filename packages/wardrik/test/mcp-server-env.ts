import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type ClientNotification,
  type ClientRequest,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AuthService } from '../src/auth/auth-service.js';
import type { Role } from '../src/auth/types.js';
import type { Agent } from '../src/index.js';
import { createWardrik, sqliteStore, type Wardrik } from '../src/index.js';
import type { McpServerOptions } from '../src/mcp-server/mcp-options.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';

/** A Wardrik serving MCP on a real port, with a token per principal. */
export interface McpEnv {
  readonly wardrik: Wardrik;
  readonly server: RunningServer;
  readonly auth: AuthService;
  readonly tokens: Record<string, string>;
  readonly ids: Record<string, string>;
  close(): Promise<void>;
}

/** Starts a runtime on a fresh SQLite file and `startServer` on a free port, with principals of the given roles. */
export async function startMcpEnv(options: {
  readonly agents: readonly Agent[];
  readonly mcp?: McpServerOptions;
  readonly principals?: ReadonlyArray<readonly [string, Role, readonly string[]]>;
}): Promise<McpEnv> {
  const path = join(mkdtempSync(join(tmpdir(), 'wardrik-mcp-')), 'wardrik.db');
  const wardrik = await createWardrik({ store: sqliteStore(path), agents: options.agents });
  const auth = new AuthService(wardrik.store);
  const server = await startServer({ wardrik, auth, port: 0, ...(options.mcp ? { mcp: options.mcp } : {}) });
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const admin = await auth.ensureAdmin();
  tokens.admin = admin?.token ?? '';
  ids.admin = admin?.principal.id ?? '';
  for (const [name, role, agents] of options.principals ?? []) {
    const principal = await auth.createPrincipal({ name, role, kind: 'user', agents: [...agents] });
    ids[name] = principal.id;
    tokens[name] = (await auth.issueToken(principal.id)).token;
  }
  return {
    wardrik,
    server,
    auth,
    tokens,
    ids,
    async close() {
      await server.close();
      await wardrik.close();
    },
  };
}

/** How a test client answers elicitations. */
export type Elicit = (
  request: ElicitRequest,
  extra: RequestHandlerExtra<ClientRequest, ClientNotification>,
) => Promise<ElicitResult>;

/** A real MCP client (the SDK's) connected over Streamable HTTP, with what it was told. */
export interface TestClient {
  readonly client: Client;
  /** The log lines (`notifications/message`) it received. */
  readonly logs: { level: string; data: unknown }[];
  close(): Promise<void>;
}

/** Connects the SDK's Client to `url` (`…/mcp`) with `token`; declares elicitation when `elicit` is given. */
export async function connectClient(
  url: string,
  token: string | undefined,
  options: { readonly elicit?: Elicit; readonly headers?: Record<string, string> } = {},
): Promise<TestClient> {
  const client = new Client(
    { name: 'wardrik-test', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (options.elicit) client.setRequestHandler(ElicitRequestSchema, options.elicit);
  const logs: { level: string; data: unknown }[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push({ level: notification.params.level, data: notification.params.data });
  });
  const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return {
    client,
    logs,
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** Waits until `check` holds (polling), or fails after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
