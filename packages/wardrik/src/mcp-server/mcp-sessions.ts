import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { SessionState } from './request-scope.js';

/** An open MCP session: its transport and server, and when it was last used. */
export interface OpenSession {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly state: SessionState;
  lastUsed: number;
}

/**
 * The MCP sessions this node holds, in memory: a session lives on the node that opened it (a
 * client whose node restarted or went away gets 404 and opens a new one; its tasks, being runs,
 * answer on any node). Sessions idle past `idleMs` are closed; a principal holds at most
 * `maxPerPrincipal`, a new one beyond closing its longest idle.
 */
export class McpSessions {
  readonly #open = new Map<string, OpenSession>();
  readonly #idleMs: number;
  readonly #maxPerPrincipal: number;
  readonly #sweep: NodeJS.Timeout;

  constructor(options: { readonly idleMs: number; readonly maxPerPrincipal: number }) {
    this.#idleMs = options.idleMs;
    this.#maxPerPrincipal = options.maxPerPrincipal;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(60_000, Math.max(10, Math.floor(options.idleMs / 2))));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#open.size;
  }

  get(id: string): OpenSession | undefined {
    const session = this.#open.get(id);
    if (session) session.lastUsed = Date.now();
    return session;
  }

  add(session: OpenSession): void {
    this.#open.set(session.id, session);
  }

  remove(id: string | undefined): void {
    if (id !== undefined) this.#open.delete(id);
  }

  /**
   * Makes room for one more session of `principal`: closes its longest idle session when it holds
   * the most it may. False when all of them are busy (then the new one is refused).
   */
  async makeRoom(principal: string): Promise<boolean> {
    const own = [...this.#open.values()].filter((session) => session.state.principal.id === principal);
    if (own.length < this.#maxPerPrincipal) return true;
    const idle = own.filter((session) => session.state.active === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!idle) return false;
    await this.#close(idle);
    return true;
  }

  /** Closes every session (the server stops). */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#open.values()].map((session) => this.#close(session)));
  }

  #closeIdle(): void {
    const before = Date.now() - this.#idleMs;
    for (const session of this.#open.values()) {
      if (session.state.active === 0 && session.lastUsed < before) void this.#close(session);
    }
  }

  async #close(session: OpenSession): Promise<void> {
    this.#open.delete(session.id);
    await session.transport.close().catch(() => {});
  }
}
