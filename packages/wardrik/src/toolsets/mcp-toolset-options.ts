import { describeType, ToolDefinitionError } from '@wardrik/core';
import { type CheckedMcpOAuth, checkMcpOAuth, type McpOAuthOptions } from './mcp-oauth-options.js';
import { checkPins, type ToolPins } from './tool-pins.js';

/** What every MCP toolset takes, whichever way it reaches its server. */
export interface McpToolsetCommonOptions {
  /**
   * Names the toolset in the journal and in errors, and prefixes its tools' names: the model sees
   * `NAME__TOOL` (e.g. `fs__read_file`), so two servers never clash. 1–32 characters of
   * `A–Z a–z 0–9 _ -`. Default `mcp`: give each toolset its own name when an agent has several.
   */
  readonly name?: string;
  /**
   * Whether the server is trusted: its answers and what it says of its tools go unlabelled.
   * Default false: every answer carries `outside`, and so does every model step offered a tool
   * whose definition is not pinned (see `pins`).
   */
  readonly trusted?: boolean;
  /**
   * The tool definitions you reviewed, by the tool's name as the server lists it: the hash
   * `wardrik listings` prints for each (`sha256:…` over the canonical JSON of its name, title,
   * description, schemas and annotations). A definition whose hash is its pin is yours: offering
   * it labels nothing. One not pinned, or that differs from its pin (the server changed it), is text
   * from outside: a model step offered it carries `outside`, so that the run's calls that are not
   * read-only wait for a person. Not for a `trusted` server.
   */
  readonly pins?: ToolPins;
  /**
   * How long a call may take (ms) unless the server lists its own `_meta['wardrik/timeout']` for
   * the tool. It becomes the tool's `timeout` annotation. Default 60,000.
   */
  readonly callTimeoutMs?: number;
  /** How long connecting and listing may take (ms), and each later listing. Default 30,000. */
  readonly connectTimeoutMs?: number;
  /**
   * How long to wait between tries to connect once a try failed: doubling from `baseDelayMs`
   * (default 500) up to `maxDelayMs` (default 30,000). A server that went away is tried again at
   * once, when the next step asks for tools.
   */
  readonly reconnect?: { readonly baseDelayMs?: number; readonly maxDelayMs?: number };
  /** Receives what the toolset notices (tools left out and why, connections lost and made). Default: none. */
  readonly log?: (message: string) => void;
  /**
   * Whether the server may ask the agent's model for a completion during a call
   * (`sampling/createMessage`, text only): answered through the call's `context.sample`, on the
   * run's model, measured and budgeted like the run's own steps. Default false: the toolset
   * declares no `sampling` capability, and the server's request is refused.
   *
   * @example
   * ```ts
   * const writer = mcpToolset({ name: 'writer', command: 'npx', args: ['-y', 'some-mcp-server'], sampling: true })
   * ```
   */
  readonly sampling?: boolean;
  /**
   * The roots the server is told of (`roots/list`): the directories (`file://` URIs) it may work
   * in. Default: none, and the toolset declares no `roots` capability.
   *
   * @example
   * ```ts
   * const files = mcpToolset({
   *   name: 'fs',
   *   command: 'npx',
   *   args: ['-y', '@modelcontextprotocol/server-filesystem'],
   *   roots: [{ uri: 'file:///srv/shared', name: 'Shared files' }],
   * })
   * ```
   */
  readonly roots?: readonly McpRoot[];
}

/** A root offered to an MCP server (`roots/list`): a `file://` URI and, optionally, a name for people. */
export interface McpRoot {
  /** A `file://` URI, e.g. `file:///srv/shared`. */
  readonly uri: string;
  readonly name?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpToolsetOptions extends McpToolsetCommonOptions {
  /** The server's MCP endpoint, e.g. `https://mcp.example.com/mcp`. */
  readonly url: string | URL;
  /** Headers sent with every request, e.g. `{ authorization: 'Bearer …' }`. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Signs in with OAuth (see `McpOAuthOptions`): the server's 401 starts discovery, registration
   * and the grant; tokens are kept in `auth.store`, encrypted with `WARDRIK_SECRET_KEY`, and
   * refreshed. Not with an `authorization` header.
   */
  readonly auth?: McpOAuthOptions;
}

/** An MCP server run as a child process, spoken to over its stdin and stdout. */
export interface McpStdioToolsetOptions extends McpToolsetCommonOptions {
  /** The program to run (looked up on `PATH`), e.g. `npx` or `process.execPath`. */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Environment variables for the server, added to a few safe ones inherited from this process
   * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`): the rest of this process's environment
   * (and its secrets) is not passed on.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The server's working directory. Default: this process's. */
  readonly cwd?: string;
}

/** How to build an MCP toolset: a `url` (Streamable HTTP) or a `command` (stdio). */
export type McpToolsetOptions = McpHttpToolsetOptions | McpStdioToolsetOptions;

/** Where the server is, checked. */
export type McpServerSpec =
  | {
      readonly type: 'http';
      readonly url: URL;
      readonly headers: Readonly<Record<string, string>>;
      readonly auth?: CheckedMcpOAuth;
    }
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    };

/** The options, checked and with defaults filled in. */
export interface CheckedMcpToolsetOptions {
  readonly name: string;
  readonly server: McpServerSpec;
  /** The server as messages name it: its URL (without query) or its command line. */
  readonly serverDescription: string;
  readonly trusted: boolean;
  /** The reviewed definitions' hashes, by tool name (none when trusted). */
  readonly pins: ToolPins;
  readonly callTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly reconnect: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly log: (message: string) => void;
  /** Whether the server may ask the agent's model (`sampling/createMessage`). */
  readonly sampling: boolean;
  /** The roots offered (`roots/list`), or undefined: none, and no `roots` capability. */
  readonly roots?: readonly McpRoot[];
  /** Where warnings go (definitions offered unpinned): `log` if given, else `console.warn`. */
  readonly warn: (message: string) => void;
}

const namePattern = /^[A-Za-z0-9_-]{1,32}$/;
const known = [
  'name',
  'trusted',
  'pins',
  'callTimeoutMs',
  'connectTimeoutMs',
  'reconnect',
  'log',
  'sampling',
  'roots',
  'url',
  'headers',
  'auth',
  'command',
  'args',
  'env',
  'cwd',
];

/**
 * Checks `mcpToolset`'s options. Throws `ToolDefinitionError` naming the field that is wrong.
 *
 * @example
 * ```ts
 * checkMcpToolsetOptions({ name: 'fs', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] })
 * ```
 */
export function checkMcpToolsetOptions(options: unknown): CheckedMcpToolsetOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ToolDefinitionError(`mcpToolset: expected an options object, got ${describeType(options)}`);
  }
  const record = options as Record<string, unknown>;
  const name = record.name ?? 'mcp';
  if (typeof name !== 'string' || !namePattern.test(name)) {
    throw new ToolDefinitionError(
      `mcpToolset: name ${JSON.stringify(name)} is invalid: use 1–32 characters of A–Z a–z 0–9 _ - (it prefixes the tools' names)`,
    );
  }
  const where = `mcpToolset ${name}`;
  const fail = (message: string): never => {
    throw new ToolDefinitionError(`${where}: ${message}`);
  };
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) fail(`${key} is not an option (expected one of ${known.join(', ')})`);
  }
  const server = checkServer(record, fail);
  const trusted = record.trusted ?? false;
  if (typeof trusted !== 'boolean') fail(`trusted must be a boolean, got ${describeType(trusted)}`);
  if (trusted === true && record.pins !== undefined) {
    fail('pins are for a server that is not trusted: trusted: true already trusts what it says of its tools');
  }
  const pins = checkPins(record.pins, 'pins', fail);
  const log = record.log ?? (() => {});
  if (typeof log !== 'function') fail(`log must be a function, got ${describeType(log)}`);
  const reconnect = record.reconnect ?? {};
  if (typeof reconnect !== 'object' || reconnect === null || Array.isArray(reconnect)) {
    fail(`reconnect must be an object such as { baseDelayMs: 500, maxDelayMs: 30000 }`);
  }
  const { baseDelayMs, maxDelayMs, ...extra } = reconnect as Record<string, unknown>;
  for (const key of Object.keys(extra)) fail(`reconnect.${key} is not an option (expected baseDelayMs, maxDelayMs)`);
  const sampling = record.sampling ?? false;
  if (typeof sampling !== 'boolean') {
    fail(`sampling must be a boolean (true lets the server ask the agent's model), got ${describeType(sampling)}`);
  }
  const roots = checkRoots(record.roots, fail);
  return {
    name,
    server,
    serverDescription: describeServer(server),
    trusted: trusted as boolean,
    pins,
    callTimeoutMs: milliseconds(record.callTimeoutMs, 60_000, 'callTimeoutMs', fail),
    connectTimeoutMs: milliseconds(record.connectTimeoutMs, 30_000, 'connectTimeoutMs', fail),
    reconnect: {
      baseDelayMs: milliseconds(baseDelayMs, 500, 'reconnect.baseDelayMs', fail),
      maxDelayMs: milliseconds(maxDelayMs, 30_000, 'reconnect.maxDelayMs', fail),
    },
    log: log as (message: string) => void,
    sampling: sampling as boolean,
    ...(roots === undefined ? {} : { roots }),
    warn:
      record.log === undefined ? (message) => console.warn(`[wardrik] ${message}`) : (log as (message: string) => void),
  };
}

function checkServer(record: Record<string, unknown>, fail: (message: string) => never): McpServerSpec {
  const { url, headers, auth, command, args, env, cwd } = record;
  if (url !== undefined && command !== undefined)
    fail('give either url (Streamable HTTP) or command (stdio), not both');
  if (url !== undefined) {
    for (const key of ['args', 'env', 'cwd'] as const) {
      if (record[key] !== undefined) fail(`${key} is for a command (stdio); a url takes headers`);
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(url instanceof URL ? url.href : String(url));
    } catch {
      parsed = undefined;
    }
    if ((typeof url !== 'string' && !(url instanceof URL)) || parsed === undefined) {
      fail(`url must be an absolute http(s) URL, got ${JSON.stringify(String(url))}`);
    }
    const checked = parsed as URL;
    if (checked.protocol !== 'http:' && checked.protocol !== 'https:') {
      fail(`url must be an http: or https: URL, got ${checked.protocol}`);
    }
    const checkedHeaders = stringRecord(headers, 'headers', fail);
    if (auth === undefined) return { type: 'http', url: checked, headers: checkedHeaders };
    if (Object.keys(checkedHeaders).some((key) => key.toLowerCase() === 'authorization')) {
      fail('give auth (OAuth) or an authorization header, not both');
    }
    return { type: 'http', url: checked, headers: checkedHeaders, auth: checkMcpOAuth(auth, fail) };
  }
  if (command === undefined) fail('give url (Streamable HTTP) or command (stdio)');
  if (headers !== undefined) fail('headers are for a url (Streamable HTTP); a command takes env');
  if (auth !== undefined) fail('auth (OAuth) is for a url (Streamable HTTP); a command takes env');
  if (typeof command !== 'string' || command.trim() === '') {
    fail(`command must be a non-empty string, got ${describeType(command)}`);
  }
  if (args !== undefined && (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string'))) {
    fail('args must be an array of strings');
  }
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) {
    fail(`cwd must be a non-empty string, got ${describeType(cwd)}`);
  }
  return {
    type: 'stdio',
    command: command as string,
    args: [...((args as string[] | undefined) ?? [])],
    ...(env === undefined ? {} : { env: stringRecord(env, 'env', fail) }),
    ...(cwd === undefined ? {} : { cwd: cwd as string }),
  };
}

function checkRoots(value: unknown, fail: (message: string) => never): readonly McpRoot[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    fail(`roots must be an array such as [{ uri: 'file:///srv/shared', name: 'Shared' }], got ${describeType(value)}`);
  }
  return Object.freeze(
    (value as unknown[]).map((root, index) => {
      const where = `roots[${index}]`;
      if (typeof root !== 'object' || root === null || Array.isArray(root)) {
        fail(`${where} must be an object such as { uri: 'file:///srv/shared' }, got ${describeType(root)}`);
      }
      const { uri, name, ...extra } = root as Record<string, unknown>;
      for (const key of Object.keys(extra)) fail(`${where}.${key} is not an option (expected uri, name)`);
      if (typeof uri !== 'string' || !uri.startsWith('file://')) {
        fail(
          `${where}.uri must be a string starting with file://, got ${typeof uri === 'string' ? JSON.stringify(uri) : describeType(uri)}`,
        );
      }
      if (name !== undefined && typeof name !== 'string') {
        fail(`${where}.name must be a string, got ${describeType(name)}`);
      }
      return Object.freeze({ uri: uri as string, ...(name === undefined ? {} : { name: name as string }) });
    }),
  );
}

function stringRecord(value: unknown, field: string, fail: (message: string) => never): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(`${field} must be an object of strings, got ${describeType(value)}`);
  }
  const copy: Record<string, string> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item !== 'string') fail(`${field}.${key} must be a string, got ${describeType(item)}`);
    copy[key] = item as string;
  }
  return copy;
}

function milliseconds(value: unknown, fallback: number, field: string, fail: (message: string) => never): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(`${field} must be a positive number of milliseconds, got ${String(value)}`);
  }
  return value as number;
}

/** The server as messages name it: a URL without its query or credentials, or the command line. */
function describeServer(server: McpServerSpec): string {
  if (server.type === 'http') return `${server.url.origin}${server.url.pathname}`;
  return [server.command, ...server.args].map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ');
}
