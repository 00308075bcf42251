import { isValidToolName, stateKeyProblem, stateScope, storableStateValue } from '@wardrik/core';
import type { Agent } from '../agent.js';
import { InvalidInputError, SessionBusyError, SessionNotFoundError } from '../errors.js';
import type { RunState } from '../journal/state.js';
import type { Message } from '../model/model.js';
import {
  type ScopedStateWrite,
  type SessionFilter,
  type SessionRow,
  type StoredStateEdit,
  type StoredStateValue,
  stateScopeOf,
  stateScopesOf,
} from '../store/session-store.js';
import type { RunRow, Store } from '../store/store.js';
import { timeOrderedId } from './ids.js';
import { type SessionStart, sessionStart } from './session-history.js';

/** How long a run that took a session's turn may take to write its first record before the turn is free again. */
export const TURN_STARTING_MS = 60_000;

/** A session with what it holds. */
export interface SessionDetails extends SessionRow {
  /** Its runs, oldest first. */
  readonly runList: readonly RunRow[];
  /** The conversation's latest messages (see `messages` of `details`), each with the run that added it. */
  readonly messages: readonly (Message & { readonly runId: string })[];
  /** Whether earlier messages were left out (the session holds more than were asked for). */
  readonly earlierMessages: boolean;
  /** The state its next run reads: the session's keys, its principal's `user:` keys and the app's `app:` keys. */
  readonly state: readonly StoredStateValue[];
  /** People's edits of the session's keys, oldest first. */
  readonly edits: readonly StoredStateEdit[];
}

/** A person's change to a session's state. */
export interface StateChanges {
  /** New values by key (`cart`, `user:name`, `app:flags`). */
  readonly set?: Readonly<Record<string, unknown>>;
  readonly delete?: readonly string[];
}

/** What sessions need of the runtime. */
export interface SessionDeps {
  readonly store: Store;
  readonly now: () => number;
  agent(name: string): Agent;
  /** A run's state, rebuilt from its journal. */
  runState(runId: string): Promise<RunState>;
}

/** Sessions: conversations whose runs take turns, share history and state. */
export class Sessions {
  readonly #deps: SessionDeps;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
  }

  async create(agentName: string, options: { principal?: string; id?: string } = {}): Promise<SessionRow> {
    const agent = this.#deps.agent(agentName);
    const principal = options.principal ?? 'local';
    if (typeof principal !== 'string' || principal === '') {
      throw new InvalidInputError('principal: expected a non-empty string');
    }
    const id = options.id ?? timeOrderedId('ses');
    if (!isValidToolName(id)) {
      throw new InvalidInputError(
        `id: ${JSON.stringify(id)} is not a session id: use 1–128 characters of A–Z a–z 0–9 _ - .`,
      );
    }
    const at = this.#deps.now();
    const session: SessionRow = {
      id,
      agent: agent.name,
      app: agent.app,
      principal,
      createdAt: at,
      updatedAt: at,
      runs: 0,
    };
    if (!(await this.#deps.store.createSession(session))) {
      throw new InvalidInputError(`id: a session with the id ${JSON.stringify(id)} exists already`);
    }
    return session;
  }

  /** The session; `SessionNotFoundError` if there is none (or it is `principal`'s to see and not theirs). */
  async get(id: string, principal?: string): Promise<SessionRow> {
    const session = typeof id === 'string' ? await this.#deps.store.getSession(id) : undefined;
    if (!session || (principal !== undefined && session.principal !== principal)) {
      throw new SessionNotFoundError(`no session ${JSON.stringify(id)}`);
    }
    return session;
  }

  list(filter: SessionFilter = {}): Promise<SessionRow[]> {
    return this.#deps.store.listSessions(filter);
  }

  /**
   * The session with its runs, the state its next run reads, and its latest `messages` messages
   * (default 200): runs are read newest first only until that many are found, so a long session
   * costs what it shows.
   */
  async details(id: string, options: { messages?: number } = {}): Promise<SessionDetails> {
    const wanted = options.messages ?? 200;
    if (!Number.isInteger(wanted) || wanted < 0) {
      throw new InvalidInputError(`messages: expected a number of messages (0 or more), got ${String(wanted)}`);
    }
    const session = await this.get(id);
    const store = this.#deps.store;
    const runIds = await store.sessionRuns(id);
    const runList: RunRow[] = [];
    let messages: (Message & { runId: string })[] = [];
    let earlierMessages = false;
    for (const runId of [...runIds].reverse()) {
      const row = await store.getRun(runId);
      if (!row) continue; // its start never reached the store
      runList.unshift(row);
      if (messages.length >= wanted) {
        earlierMessages = true; // every run holds its input at least
        continue;
      }
      const state = await this.#deps.runState(runId);
      const own = state.messages.slice(state.historyLength).map((message) => ({ ...message, runId }));
      messages = [...own, ...messages];
    }
    if (messages.length > wanted) {
      messages = messages.slice(messages.length - wanted);
      earlierMessages = true;
    }
    const state = await store.loadState(
      stateScopesOf({ app: session.app, principal: session.principal, sessionId: id }),
    );
    const edits = await store.listStateEdits(`session:${id}`);
    return { ...session, runList, messages, earlierMessages, state, edits };
  }

  /** Deletes a session whose runs are not going; its runs and their journals stay. */
  async delete(id: string): Promise<void> {
    const session = await this.get(id);
    await this.#checkIdle(session);
    if (!(await this.#deps.store.deleteSession(id))) throw new SessionNotFoundError(`no session ${JSON.stringify(id)}`);
  }

  /**
   * Takes the session's turn for a new run of `agent` for `principal`, and gives what the run
   * starts from. `SessionNotFoundError` for a session of another principal, `SessionBusyError`
   * while the run before is going.
   */
  async takeTurn(sessionId: string, agent: Agent, principal: string, runId: string): Promise<SessionStart> {
    const session = await this.get(sessionId, principal);
    if (session.agent !== agent.name) {
      throw new InvalidInputError(
        `session: session ${sessionId} belongs to agent ${session.agent}, not ${agent.name}; start a session of ${agent.name}`,
      );
    }
    // What it starts from is worked out first: a failure here (a summarize hook that throws) holds no turn.
    let previous = session.lastRun;
    let start = await this.#startAfter(previous, agent);
    const claim = await this.#deps.store.claimTurn(sessionId, runId, this.#deps.now(), TURN_STARTING_MS);
    if (!claim.claimed) {
      if ('missing' in claim) throw new SessionNotFoundError(`no session ${JSON.stringify(sessionId)}`);
      throw new SessionBusyError(await this.#busyReason(sessionId, claim.activeRun));
    }
    const runs = await this.#deps.store.sessionRuns(sessionId);
    const before = runs[runs.indexOf(runId) - 1];
    if (before !== previous) {
      // Another run took (and finished) a turn meanwhile: start after it instead.
      previous = before;
      start = await this.#startAfter(previous, agent);
    }
    return start;
  }

  /** Applies a person's change to a session's state (its keys, its principal's `user:` keys, the app's `app:` keys). */
  async editState(id: string, changes: StateChanges, edit: { by: string; reason: string }): Promise<void> {
    const session = await this.get(id);
    const writes = stateEditWrites(changes, { app: session.app, principal: session.principal, sessionId: id });
    if (typeof edit.reason !== 'string' || edit.reason.trim() === '') {
      throw new InvalidInputError('reason: say why the state is changed (it is kept with the change)');
    }
    await this.#deps.store.editState({ writes, by: edit.by, reason: edit.reason, at: this.#deps.now() });
  }

  async #startAfter(runId: string | undefined, agent: Agent): Promise<SessionStart> {
    if (runId === undefined || !(await this.#deps.store.getRun(runId))) return sessionStart(undefined, agent);
    return sessionStart(await this.#deps.runState(runId), agent);
  }

  async #checkIdle(session: SessionRow): Promise<void> {
    if (session.lastRun === undefined) return;
    const row = await this.#deps.store.getRun(session.lastRun);
    if (row && (row.status === 'running' || row.status === 'parked')) {
      throw new SessionBusyError(await this.#busyReason(session.id, session.lastRun));
    }
  }

  async #busyReason(sessionId: string, activeRun: string): Promise<string> {
    const row = await this.#deps.store.getRun(activeRun);
    const how = row?.status === 'parked' ? 'is parked, waiting for a person' : row ? 'is running' : 'is being started';
    return (
      `session ${sessionId} is busy: its run ${activeRun} ${how}; the runs of a session take turns ` +
      '(wait for it to end, answer its parks, or cancel it)'
    );
  }
}

/** The writes of a person's change, checked: keys and JSON values, no `temp:` keys (they live in one run only). */
export function stateEditWrites(
  changes: StateChanges,
  run: { readonly app: string; readonly principal: string; readonly sessionId: string },
): ScopedStateWrite[] {
  if (typeof changes !== 'object' || changes === null) {
    throw new InvalidInputError('expected { set: { key: value }, delete: [key] }');
  }
  const { set = {}, delete: deleted = [] } = changes;
  if (typeof set !== 'object' || set === null || Array.isArray(set)) {
    throw new InvalidInputError('set: expected an object of keys and JSON values');
  }
  if (!Array.isArray(deleted)) throw new InvalidInputError('delete: expected an array of keys');
  const writes: ScopedStateWrite[] = [];
  const scopeOf = (key: unknown, where: string): string => {
    const problem = stateKeyProblem(key);
    if (problem !== undefined) throw new InvalidInputError(`${where}: ${problem}`);
    if (stateScope(key as string) === 'temp') {
      throw new InvalidInputError(`${where}: temp: keys live in one run only and can't be set from outside it`);
    }
    return stateScopeOf(key as string, run) as string;
  };
  for (const [key, value] of Object.entries(set)) {
    const scope = scopeOf(key, `set.${key}`);
    let stored: unknown;
    try {
      stored = storableStateValue(key, value);
    } catch (cause) {
      throw new InvalidInputError(`set.${key}: ${(cause as Error).message}`);
    }
    writes.push({ scope, key, value: stored, labels: [] });
  }
  for (const [index, key] of deleted.entries()) {
    writes.push({ scope: scopeOf(key, `delete[${index}]`), key: key as string, deleted: true, labels: [] });
  }
  if (writes.length === 0) throw new InvalidInputError('expected at least one key in set or delete');
  return writes;
}
