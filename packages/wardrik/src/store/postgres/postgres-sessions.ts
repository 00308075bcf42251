import type {
  SessionFilter,
  SessionRow,
  SessionStore,
  StateEdit,
  StateScopeId,
  StoredStateEdit,
  StoredStateValue,
  TurnClaim,
} from '../session-store.js';
import type { PostgresExecutor } from './postgres-executor.js';
import * as sessions from './session-queries.js';

/** Sessions and state on PostgreSQL. */
export class PostgresSessions implements SessionStore {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async createSession(session: SessionRow): Promise<boolean> {
    return this.#executor.call(`creating session ${session.id}`, (client) => sessions.createSession(client, session), {
      retry: false,
    });
  }

  async getSession(id: string): Promise<SessionRow | undefined> {
    return this.#executor.call(`reading session ${id}`, (client) => sessions.getSession(client, id), { retry: true });
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    return this.#executor.call('listing sessions', (client) => sessions.listSessions(client, filter), { retry: true });
  }

  async deleteSession(id: string): Promise<boolean> {
    return this.#executor.call(`deleting session ${id}`, (client) => sessions.deleteSession(client, id), {
      retry: false,
    });
  }

  async claimTurn(sessionId: string, runId: string, at: number, startingMs: number): Promise<TurnClaim> {
    return this.#executor.call(
      `taking a turn in session ${sessionId}`,
      (client) => sessions.claimTurn(client, sessionId, runId, at, startingMs),
      { retry: false },
    );
  }

  async sessionRuns(sessionId: string): Promise<string[]> {
    return this.#executor.read(`listing the runs of session ${sessionId}`, (client) =>
      sessions.sessionRuns(client, sessionId),
    );
  }

  async loadState(scopes: readonly StateScopeId[]): Promise<StoredStateValue[]> {
    return this.#executor.read('reading state', (client) => sessions.loadState(client, scopes));
  }

  async editState(edit: StateEdit): Promise<void> {
    await this.#executor.call('editing state', (client) => sessions.editState(client, edit), { retry: false });
  }

  async listStateEdits(scope: StateScopeId): Promise<StoredStateEdit[]> {
    return this.#executor.call(`listing the edits of ${scope}`, (client) => sessions.listStateEdits(client, scope), {
      retry: true,
    });
  }
}
