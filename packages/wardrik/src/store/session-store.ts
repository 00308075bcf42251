import type { Label } from '@wardrik/core';

/** A conversation: runs of one agent for one principal, one at a time, sharing their history and state. */
export interface SessionRow {
  readonly id: string;
  readonly agent: string;
  /** Whose `user:` and `app:` state its runs read (the agent's `app`). */
  readonly app: string;
  readonly principal: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** How many runs took a turn in it. */
  readonly runs: number;
  /** The run that took the latest turn (it may still be going). */
  readonly lastRun?: string;
}

/** Filters for listing sessions, newest first. */
export interface SessionFilter {
  readonly agent?: string;
  /** Only sessions of these agents (a principal's scope); applied before `limit`. */
  readonly agents?: readonly string[];
  readonly principal?: string;
  readonly limit?: number;
}

/**
 * Whether a run took the session's turn: refused while the run before it is still going (running
 * or parked); `missing` when there is no such session.
 */
export type TurnClaim =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly missing: true }
  | { readonly claimed: false; readonly activeRun: string };

/**
 * Where state values live: `session:<id>` (a session's unprefixed keys), `user:<app>:<principal>`
 * and `app:<app>`. See `stateScopeOf`.
 */
export type StateScopeId = string;

/** A state value as stored. */
export interface StoredStateValue {
  readonly scope: StateScopeId;
  /** The key as tools name it, prefix included (`cart`, `user:name`). */
  readonly key: string;
  readonly value: unknown;
  readonly labels: readonly Label[];
  readonly updatedAt: number;
  /** The run whose call wrote it, or `person:<who>` for an edit through the API. */
  readonly updatedBy: string;
}

/** One write of state, in a run's write (atomically with the record that journals it) or in an edit. */
export interface ScopedStateWrite {
  readonly scope: StateScopeId;
  readonly key: string;
  readonly value?: unknown;
  readonly deleted?: true;
  readonly labels: readonly Label[];
}

/** A person's edit of state through the API: applied, and kept with who made it and why. */
export interface StateEdit {
  readonly writes: readonly ScopedStateWrite[];
  readonly by: string;
  readonly reason: string;
  readonly at: number;
}

/** A kept edit. */
export interface StoredStateEdit extends StateEdit {
  readonly id: number;
}

/**
 * Sessions and state. Runs write state with their journal (`RunWrite.state`); people edit it
 * here (`editState`).
 */
export interface SessionStore {
  /** Creates a session; false if one has this id already. */
  createSession(session: SessionRow): Promise<boolean>;
  getSession(id: string): Promise<SessionRow | undefined>;
  listSessions(filter?: SessionFilter): Promise<SessionRow[]>;
  /** Deletes a session, its state and its list of runs (the runs and their journals stay). False if unknown. */
  deleteSession(id: string): Promise<boolean>;
  /**
   * Gives the session's turn to `runId`, durably, unless the run before it is still going (its
   * row says running or parked, or it has no row yet and took its turn less than `startingMs`
   * ago: it is being started). One caller wins, however many ask at once.
   */
  claimTurn(sessionId: string, runId: string, at: number, startingMs: number): Promise<TurnClaim>;
  /** The ids of the runs that took a turn in the session, oldest first. */
  sessionRuns(sessionId: string): Promise<string[]>;
  /** Every value of the given scopes. */
  loadState(scopes: readonly StateScopeId[]): Promise<StoredStateValue[]>;
  /** Applies a person's edit and keeps it, durably. */
  editState(edit: StateEdit): Promise<void>;
  /** The edits made to a scope, oldest first. */
  listStateEdits(scope: StateScopeId): Promise<StoredStateEdit[]>;
}

/** An edit's writes by the scope they touch, in order: each scope's part of the edit is kept with that scope. */
export function writesByScope(writes: readonly ScopedStateWrite[]): Map<StateScopeId, ScopedStateWrite[]> {
  const byScope = new Map<StateScopeId, ScopedStateWrite[]>();
  for (const write of writes) {
    const list = byScope.get(write.scope);
    if (list) list.push(write);
    else byScope.set(write.scope, [write]);
  }
  return byScope;
}

/** The scope a key of a run lives in, or undefined for keys kept in its journal only. */
export function stateScopeOf(
  key: string,
  run: { readonly app: string; readonly principal: string; readonly sessionId?: string | undefined },
): StateScopeId | undefined {
  if (key.startsWith('user:')) return `user:${run.app}:${run.principal}`;
  if (key.startsWith('app:')) return `app:${run.app}`;
  if (key.startsWith('temp:') || run.sessionId === undefined) return undefined;
  return `session:${run.sessionId}`;
}

/** The scopes a run reads: its session's (if any), its principal's in its app, and its app's. */
export function stateScopesOf(run: {
  readonly app: string;
  readonly principal: string;
  readonly sessionId?: string | undefined;
}): StateScopeId[] {
  const scopes = [`user:${run.app}:${run.principal}`, `app:${run.app}`];
  if (run.sessionId !== undefined) scopes.unshift(`session:${run.sessionId}`);
  return scopes;
}
