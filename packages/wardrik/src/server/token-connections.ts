import type { AuthService } from '../auth/auth-service.js';
import { SERVER_LIMIT_DEFAULTS } from './server-settings.js';

/** The token a long-lived connection was opened with. */
export interface Credentials {
  /** The token's id (`tok_…`), as `authenticate` reported it. */
  readonly tokenId: string;
  /** The `Authorization` header it came with, to check the token again later. */
  readonly bearer: string;
}

/** Options of {@link TokenConnections}. */
export interface TokenConnectionsOptions {
  /**
   * How often the tokens of open connections are checked again, in ms, to catch revocations made
   * elsewhere (`wardrik tokens revoke`, another node). Default 10 s.
   */
  readonly recheckMs?: number;
}

interface Held {
  readonly bearer: string;
  readonly closers: Set<() => void>;
}

/**
 * Long-lived connections (event streams, worker sockets) by the token that opened them, so that
 * revoking a token closes them: at once when it is revoked through `auth`, and within `recheckMs`
 * when it is revoked anywhere else. While nothing is held it neither listens nor checks.
 *
 * @example
 * ```ts
 * const connections = new TokenConnections(auth)
 * const release = connections.hold({ tokenId, bearer }, () => socket.close(1008, 'token revoked'))
 * socket.once('close', release)
 * ```
 */
export class TokenConnections {
  readonly #auth: AuthService;
  readonly #recheckMs: number;
  readonly #held = new Map<string, Held>();
  #stopListening: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(auth: AuthService, options: TokenConnectionsOptions = {}) {
    this.#auth = auth;
    this.#recheckMs = options.recheckMs ?? SERVER_LIMIT_DEFAULTS.revocationCheckMs;
  }

  /** How many connections are held. */
  get size(): number {
    let count = 0;
    for (const held of this.#held.values()) count += held.closers.size;
    return count;
  }

  /** Holds a connection opened with `credentials`; `close` ends it. Returns the function that lets it go. */
  hold(credentials: Credentials, close: () => void): () => void {
    let held = this.#held.get(credentials.tokenId);
    if (held === undefined) {
      held = { bearer: credentials.bearer, closers: new Set() };
      this.#held.set(credentials.tokenId, held);
    }
    held.closers.add(close);
    this.#watch();
    const entry = held;
    return () => {
      entry.closers.delete(close);
      if (entry.closers.size === 0 && this.#held.get(credentials.tokenId) === entry) {
        this.#held.delete(credentials.tokenId);
      }
      if (this.#held.size === 0) this.#unwatch();
    };
  }

  /** Closes every connection opened with the token `tokenId`. */
  closeToken(tokenId: string): void {
    const held = this.#held.get(tokenId);
    if (held === undefined) return;
    this.#held.delete(tokenId);
    for (const close of [...held.closers]) close();
    if (this.#held.size === 0) this.#unwatch();
  }

  /** Checks every held token again and closes the connections of those that no longer authenticate. */
  async recheck(): Promise<void> {
    for (const [tokenId, held] of [...this.#held]) {
      // A store that cannot answer now proves nothing: keep the connection until it can.
      const outcome = await this.#auth.authenticate(held.bearer).catch(() => undefined);
      if (outcome !== undefined && !outcome.ok) this.closeToken(tokenId);
    }
  }

  #watch(): void {
    this.#stopListening ??= this.#auth.onTokenRevoked((tokenId) => this.closeToken(tokenId));
    if (this.#timer === undefined && this.#recheckMs > 0) {
      this.#timer = setInterval(() => void this.recheck(), this.#recheckMs);
      this.#timer.unref();
    }
  }

  #unwatch(): void {
    this.#stopListening?.();
    this.#stopListening = undefined;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
