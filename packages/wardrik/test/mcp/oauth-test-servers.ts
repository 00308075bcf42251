/*
 * A small OAuth authorization server (node:http) in front of a real MCP SDK server over Streamable
 * HTTP, for the mcpToolset OAuth tests. The AS: metadata (RFC 8414), dynamic registration, an
 * authorize endpoint that signs the "person" named by `user` in at once (PKCE S256 required), a
 * token endpoint (authorization_code with PKCE, refresh_token, client_credentials with
 * client_secret_basic), tokens that a test can expire, a token endpoint that can be made to fail.
 * The MCP server: protected resource metadata (RFC 9728), 401 with WWW-Authenticate, a 403
 * insufficient_scope for tool `admin_report` without scope `admin`; tools `whoami` (the token's
 * subject) and `admin_report`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface IssuedToken {
  readonly subject: string;
  readonly scope: string;
  expired: boolean;
}

export interface OAuthTestServers {
  /** The MCP endpoint. */
  readonly mcpUrl: string;
  readonly issuer: string;
  /** Access tokens issued, by value. */
  readonly accessTokens: Map<string, IssuedToken>;
  /** Refresh tokens issued, by value. */
  readonly refreshTokens: Map<string, IssuedToken>;
  /** The grant type of each token request, in order. */
  readonly grants: string[];
  /** The scope of each authorization request, in order. */
  readonly authorizationScopes: string[];
  /** Clients registered, by id (their secrets). */
  readonly clients: Map<string, string | undefined>;
  /** When set, the token endpoint answers 500 with this description. */
  tokenFailure: string | undefined;
  close(): Promise<void>;
}

export const PRE_REGISTERED = { clientId: 'svc-client', clientSecret: 'svc-secret-0123456789' };

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(value));
}

export async function startOAuthTestServers(): Promise<OAuthTestServers> {
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, IssuedToken>();
  const grants: string[] = [];
  const authorizationScopes: string[] = [];
  const clients = new Map<string, string | undefined>([[PRE_REGISTERED.clientId, PRE_REGISTERED.clientSecret]]);
  const codes = new Map<string, { challenge: string; subject: string; scope: string; clientId: string }>();
  const state: { tokenFailure: string | undefined } = { tokenFailure: undefined };

  const issue = (subject: string, scope: string, refresh: boolean) => {
    const access = `at-${randomBytes(12).toString('hex')}`;
    accessTokens.set(access, { subject, scope, expired: false });
    const tokens: Record<string, unknown> = { access_token: access, token_type: 'Bearer', expires_in: 3600, scope };
    if (refresh) {
      const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
      refreshTokens.set(refreshToken, { subject, scope, expired: false });
      tokens['refresh_token'] = refreshToken;
    }
    return tokens;
  };

  /** The client a token request authenticates as (client_secret_basic, client_secret_post or none). */
  const clientOf = (request: IncomingMessage, form: URLSearchParams): string | undefined => {
    const header = request.headers.authorization;
    if (header?.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':').map(decodeURIComponent);
      return id !== undefined && clients.has(id) && clients.get(id) === secret ? id : undefined;
    }
    const id = form.get('client_id') ?? undefined;
    if (id === undefined || !clients.has(id)) return undefined;
    const secret = clients.get(id);
    return secret === undefined || secret === form.get('client_secret') ? id : undefined;
  };

  const authServer = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    if (request.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      });
    }
    if (request.method === 'POST' && url.pathname === '/register') {
      const metadata = JSON.parse(await body(request)) as Record<string, unknown>;
      const clientId = `dyn-${randomBytes(6).toString('hex')}`;
      const secret = `dyn-secret-${randomBytes(12).toString('hex')}`;
      clients.set(clientId, secret);
      return json(response, 201, {
        ...metadata,
        client_id: clientId,
        client_secret: secret,
        token_endpoint_auth_method: 'client_secret_basic',
      });
    }
    if (request.method === 'GET' && url.pathname === '/authorize') {
      const challenge = url.searchParams.get('code_challenge');
      if (url.searchParams.get('code_challenge_method') !== 'S256' || challenge === null) {
        return json(response, 400, { error: 'invalid_request', error_description: 'PKCE S256 is required' });
      }
      const scope = url.searchParams.get('scope') ?? '';
      authorizationScopes.push(scope);
      const code = `code-${randomBytes(8).toString('hex')}`;
      codes.set(code, {
        challenge,
        subject: url.searchParams.get('user') ?? 'someone',
        scope,
        clientId: url.searchParams.get('client_id') ?? '',
      });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      response.writeHead(302, { location: back.href });
      return response.end();
    }
    if (request.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await body(request));
      const grant = form.get('grant_type') ?? '';
      grants.push(grant);
      if (state.tokenFailure !== undefined) {
        return json(response, 500, { error: 'server_error', error_description: state.tokenFailure });
      }
      const client = clientOf(request, form);
      if (client === undefined) return json(response, 401, { error: 'invalid_client' });
      if (grant === 'client_credentials') return json(response, 200, issue(client, form.get('scope') ?? '', false));
      if (grant === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (code === undefined || createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
          return json(response, 400, { error: 'invalid_grant', error_description: 'bad code or PKCE verifier' });
        }
        return json(response, 200, issue(code.subject, code.scope, true));
      }
      if (grant === 'refresh_token') {
        const held = refreshTokens.get(form.get('refresh_token') ?? '');
        if (held === undefined) return json(response, 400, { error: 'invalid_grant' });
        return json(response, 200, issue(held.subject, held.scope, true));
      }
      return json(response, 400, { error: 'unsupported_grant_type' });
    }
    json(response, 404, { error: 'not_found' });
  });
  const issuer = await listen(authServer);

  const mcpHttp = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', base);
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return json(response, 200, {
        resource: `${base}/mcp`,
        authorization_servers: [issuer],
        scopes_supported: ['read', 'admin'],
      });
    }
    if (url.pathname !== '/mcp') return json(response, 404, { error: 'not_found' });
    const metadata = `${base}/.well-known/oauth-protected-resource/mcp`;
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? accessTokens.get(header.slice(7)) : undefined;
    if (token === undefined || token.expired) {
      return json(
        response,
        401,
        { error: 'invalid_token' },
        {
          'www-authenticate': `Bearer error="invalid_token", scope="read", resource_metadata="${metadata}"`,
        },
      );
    }
    const text = request.method === 'POST' ? await body(request) : '';
    const message = text === '' ? undefined : (JSON.parse(text) as { method?: string; params?: { name?: string } });
    if (
      message?.method === 'tools/call' &&
      message.params?.name === 'admin_report' &&
      !token.scope.split(' ').includes('admin')
    ) {
      return json(
        response,
        403,
        { error: 'insufficient_scope' },
        {
          'www-authenticate': `Bearer error="insufficient_scope", scope="read admin", resource_metadata="${metadata}"`,
        },
      );
    }
    const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Who the token is for', annotations: { readOnlyHint: true } },
      async () => ({
        content: [{ type: 'text', text: token.subject }],
      }),
    );
    server.registerTool(
      'admin_report',
      { description: 'Needs scope admin', annotations: { readOnlyHint: true } },
      async () => ({
        content: [{ type: 'text', text: `report for ${token.subject}` }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, message);
  });
  const base = await listen(mcpHttp);

  return {
    mcpUrl: `${base}/mcp`,
    issuer,
    accessTokens,
    refreshTokens,
    grants,
    authorizationScopes,
    clients,
    get tokenFailure() {
      return state.tokenFailure;
    },
    set tokenFailure(value) {
      state.tokenFailure = value;
    },
    close: async () => {
      for (const server of [authServer, mcpHttp]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
