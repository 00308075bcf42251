import { coversAgent, type PurgeSessionsQuery } from './retention-store.js';
import type {
  ScopedStateWrite,
  SessionFilter,
  SessionRow,
  SessionStore,
  StateEdit,
  StateScopeId,
  StoredStateEdit,
  StoredStateValue,
  TurnClaim,
} from './session-store.js';
import type { RunStatus } from './store.js';

/** What the session store needs of the store around it. */
export interface SessionHost {
  /** Throws if the store can't be used (failed or closed). */
  check(): void;
  /** The status of a run's row, or undefined if it has none. */
  runStatus(runId: string): RunStatus | undefined;
  /** Told of a session deleted (its artifacts go with it). */
  deleted?(sessionId: string): void;
}

/** Sessions and state kept in this process's memory (the memory store's). */
export class ProcessSessionStore implements SessionStore {
  readonly #host: SessionHost;
  readonly #sessions = new Map<string, SessionRow & { turnAt: number }>();
  readonly #runs = new Map<string, string[]>();
  /** Values by scope, then by key. */
  readonly #state = new Map<StateScopeId, Map<string, StoredStateValue>>();
  readonly #edits: StoredStateEdit[] = [];

  constructor(host: SessionHost) {
    this.#host = host;
  }

  async createSession(session: SessionRow): Promise<boolean> {
    this.#host.check();
    if (this.#sessions.has(session.id)) return false;
    this.#sessions.set(session.id, { ...session, turnAt: 0 });
    this.#runs.set(session.id, []);
    return true;
  }

  async getSession(id: string): Promise<SessionRow | undefined> {
    this.#host.check();
    return publicRow(this.#sessions.get(id));
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionRow[]> {
    this.#host.check();
    const found = [...this.#sessions.values()]
      .filter(
        (session) =>
          (filter.agent === undefined || session.agent === filter.agent) &&
          (filter.agents === undefined || filter.agents.includes(session.agent)) &&
          (filter.principal === undefined || session.principal === filter.principal),
      )
      .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
    return found.slice(0, filter.limit ?? found.length).map((row) => publicRow(row) as SessionRow);
  }

  async deleteSession(id: string): Promise<boolean> {
    this.#host.check();
    if (!this.#sessions.delete(id)) return false;
    this.#runs.delete(id);
    this.#state.delete(`session:${id}`);
    this.#host.deleted?.(id);
    return true;
  }

  async claimTurn(sessionId: string, runId: string, at: number, startingMs: number): Promise<TurnClaim> {
    this.#host.check();
    const session = this.#sessions.get(sessionId);
    if (!session) return { claimed: false, missing: true };
    if (session.lastRun !== undefined && session.lastRun !== runId) {
      const status = this.#host.runStatus(session.lastRun);
      const going =
        status === undefined ? at - session.turnAt < startingMs : status === 'running' || status === 'parked';
      if (going) return { claimed: false, activeRun: session.lastRun };
    }
    if (session.lastRun === runId) return { claimed: true };
    this.#sessions.set(sessionId, { ...session, lastRun: runId, runs: session.runs + 1, updatedAt: at, turnAt: at });
    this.#runs.get(sessionId)?.push(runId);
    return { claimed: true };
  }

  async sessionRuns(sessionId: string): Promise<string[]> {
    this.#host.check();
    return [...(this.#runs.get(sessionId) ?? [])];
  }

  async loadState(scopes: readonly StateScopeId[]): Promise<StoredStateValue[]> {
    this.#host.check();
    const values: StoredStateValue[] = [];
    for (const scope of scopes) for (const value of this.#state.get(scope)?.values() ?? []) values.push(value);
    return values.map((value) => ({ ...value, value: structuredClone(value.value) }));
  }

  async editState(edit: StateEdit): Promise<void> {
    this.#host.check();
    this.applyState(edit.writes, edit.at, `person:${edit.by}`);
    this.#edits.push({ ...edit, id: this.#edits.length + 1 });
  }

  async listStateEdits(scope: StateScopeId): Promise<StoredStateEdit[]> {
    this.#host.check();
    return this.#edits
      .filter((edit) => edit.writes.some((write) => write.scope === scope))
      .map((edit) => ({ ...edit, writes: edit.writes.filter((write) => write.scope === scope) }));
  }

  /** Whether a session kept here lists the run (a session's runs go with it). */
  holdsRun(runId: string): boolean {
    for (const runs of this.#runs.values()) if (runs.includes(runId)) return true;
    return false;
  }

  /** The app of a session kept here, if there is one. */
  appOf(sessionId: string): string | undefined {
    return this.#sessions.get(sessionId)?.app;
  }

  /**
   * Deletes up to `limit` sessions idle since `idleBefore` whose last run is not going, with their
   * runs' list and their state; returns their ids (the store deletes their artifacts).
   */
  purgeIdle(query: PurgeSessionsQuery): string[] {
    this.#host.check();
    const going = (runId: string | undefined) => {
      const status = runId === undefined ? undefined : this.#host.runStatus(runId);
      return status === 'running' || status === 'parked';
    };
    const idle = [...this.#sessions.values()]
      .filter(
        (session) =>
          session.updatedAt < query.idleBefore && coversAgent(query.agents, session.agent) && !going(session.lastRun),
      )
      .sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : 1))
      .slice(0, query.limit);
    for (const session of idle) {
      const scope = `session:${session.id}`;
      this.#sessions.delete(session.id);
      this.#runs.delete(session.id);
      this.#state.delete(scope);
      for (let index = this.#edits.length - 1; index >= 0; index--) {
        const edit = this.#edits[index] as StoredStateEdit;
        const writes = edit.writes.filter((write) => write.scope !== scope);
        if (writes.length === edit.writes.length) continue;
        if (writes.length === 0) this.#edits.splice(index, 1);
        else this.#edits[index] = { ...edit, writes };
      }
    }
    return idle.map((session) => session.id);
  }

  /** Applies writes in order (the store calls this in the same step as the run's write that holds them). */
  applyState(writes: readonly ScopedStateWrite[], at: number, updatedBy: string): void {
    for (const write of writes) {
      let values = this.#state.get(write.scope);
      if (write.deleted) {
        values?.delete(write.key);
        continue;
      }
      if (!values) {
        values = new Map();
        this.#state.set(write.scope, values);
      }
      values.set(write.key, {
        scope: write.scope,
        key: write.key,
        value: structuredClone(write.value),
        labels: [...write.labels],
        updatedAt: at,
        updatedBy,
      });
    }
  }
}

function publicRow(row: (SessionRow & { turnAt: number }) | undefined): SessionRow | undefined {
  if (!row) return undefined;
  const { turnAt: _, ...session } = row;
  return session;
}
