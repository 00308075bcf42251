import { isIP } from 'node:net';

/** Who may reach `/mcp` from where: the allowed `Host` names and browser origins. */
export interface OriginRules {
  /** Host names (no port, IPv6 in brackets) a request's `Host` may name; undefined: any. */
  readonly hosts?: readonly string[];
  /** Origins (`https://app.example.com`) a browser request may come from, besides the server's own. */
  readonly origins: readonly string[];
}

/**
 * Whether `host` (a listener's address or name) is reachable from this machine only.
 *
 * @example
 * ```ts
 * isLoopback('127.0.0.1') // true
 * isLoopback('0.0.0.0') // false: every address
 * ```
 */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost') || bare === '::1') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::ffff:127.0.0.1';
}

/**
 * The rules for a listener on `listenHost`: the hosts configured, else on a loopback listener the
 * loopback names (and the listener's own), else any host.
 */
export function originRules(
  listenHost: string,
  options: { readonly allowedHosts?: readonly string[]; readonly allowedOrigins?: readonly string[] },
): OriginRules {
  const origins = (options.allowedOrigins ?? []).map((origin) => new URL(origin).origin);
  if (options.allowedHosts) return { hosts: options.allowedHosts.map(normalHost), origins };
  if (!isLoopback(listenHost)) return { origins };
  const own = listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost;
  return { hosts: [...new Set(['localhost', '127.0.0.1', '[::1]', normalHost(own)])], origins };
}

/**
 * Why a request must be refused (DNS rebinding protection), or undefined when it may go on: a
 * `Host` that is not allowed, or an `Origin` that is neither allowed nor the server's own.
 *
 * @example
 * ```ts
 * originProblem({ host: '127.0.0.1:4000', origin: 'http://evil.example' }, rules)
 * // 'Origin http://evil.example is not allowed (set mcp.allowedOrigins to let a web page call this server)'
 * ```
 */
export function originProblem(
  headers: { readonly host: string | undefined; readonly origin: string | undefined },
  rules: OriginRules,
): string | undefined {
  const host = headers.host ?? '';
  if (rules.hosts !== undefined && !rules.hosts.includes(hostName(host))) {
    return `Host ${JSON.stringify(host)} is not allowed (allowed: ${rules.hosts.join(', ')}; set mcp.allowedHosts to change)`;
  }
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return `Origin ${JSON.stringify(origin)} is not a URL`;
  }
  if (rules.origins.includes(parsed.origin)) return undefined;
  // The server's own page: the origin names the very host the request was sent to.
  if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.host === host.toLowerCase())
    return undefined;
  return `Origin ${origin} is not allowed (set mcp.allowedOrigins to let a web page call this server)`;
}

/** `Example.com:4000` → `example.com`, `[::1]:4000` → `[::1]`. */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

function normalHost(host: string): string {
  const lower = host.trim().toLowerCase();
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}
