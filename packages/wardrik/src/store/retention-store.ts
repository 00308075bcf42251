import { InvalidInputError } from '../errors.js';
import type { RunStatus } from '../journal/run-status.js';

/** The statuses of runs a purge may delete: ended ones, and parked ones. A running run is never purged. */
export type PurgeableStatus = Exclude<RunStatus, 'running'>;

/** Every status a purge may delete. */
export const PURGEABLE_STATUSES: readonly PurgeableStatus[] = ['completed', 'failed', 'cancelled', 'parked'];

/** The ended statuses. */
export const ENDED_STATUSES: readonly PurgeableStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Which agents' rows a purge covers: one agent's, or every agent's except those named (the rule
 * for the agents that have none of their own, and for agents no node defines any more).
 */
export type AgentSelection = { readonly agent: string } | { readonly exceptAgents: readonly string[] };

/**
 * Which apps' memories and artifacts a purge covers: one app's (see `Agent.app`), or every app's
 * except those named.
 */
export type AppSelection = { readonly app: string } | { readonly exceptApps: readonly string[] };

/** Runs to purge: those of `statuses` not updated since `before` (an ended run's end, a parked run's park). */
export interface PurgeRunsQuery {
  readonly statuses: readonly PurgeableStatus[];
  /** Runs whose row was last written before this time (ms since the epoch). */
  readonly before: number;
  /** Whose runs; every agent's when absent. */
  readonly agents?: AgentSelection;
  /** At most this many runs, in one short transaction. */
  readonly limit: number;
}

/** What one `purgeRuns` deleted. */
export interface PurgedRuns {
  /** The runs deleted, with their journals, parks, requests, leases and run artifacts. */
  readonly runIds: readonly string[];
  /** Journal records deleted with them. */
  readonly records: number;
}

/** Sessions to purge: those nobody used since `idleBefore`, whose last run is not going. */
export interface PurgeSessionsQuery {
  readonly idleBefore: number;
  readonly agents?: AgentSelection;
  readonly limit: number;
}

/** Memories to purge: those said before `before`. */
export interface PurgeMemoriesQuery {
  readonly before: number;
  readonly apps?: AppSelection;
  readonly limit: number;
}

/**
 * Artifact versions to purge: every version older than the newest `keepVersions` of its name. An
 * app's artifacts are its principals' (`user:<app>:…` scopes) and those of its sessions; a run's
 * own artifacts (`run:<id>`) belong to no app (a rule for every app covers them, and they go with
 * their run).
 */
export interface PurgeArtifactsQuery {
  readonly keepVersions: number;
  readonly apps?: AppSelection;
  readonly limit: number;
}

/**
 * Deleting what retention no longer keeps, a batch at a time, each batch one short transaction (a
 * store keeps serving runs between them), and the lock that lets one node at a time sweep.
 *
 * What each purge leaves alone:
 * - a run that is `running`, one whose lease a node holds now, and one that took a turn in a
 *   session that is still kept (a session's runs are its conversation: they go once it goes);
 * - a session whose last run is running or parked.
 */
export interface RetentionStore {
  /**
   * Deletes up to `limit` runs matching `query`, oldest first, with their journals, parks,
   * requests, leases and run-scoped artifacts (`run:<id>`).
   */
  purgeRuns(query: PurgeRunsQuery): Promise<PurgedRuns>;
  /**
   * Deletes up to `limit` idle sessions with their list of runs, their state (values and edits)
   * and their artifacts; resolves to how many. Their runs then follow the runs' rule.
   */
  purgeSessions(query: PurgeSessionsQuery): Promise<number>;
  /** Deletes up to `limit` memories said before `before`; resolves to how many. */
  purgeMemories(query: PurgeMemoriesQuery): Promise<number>;
  /** Deletes up to `limit` artifact versions beyond the newest `keepVersions` of their name; resolves to how many. */
  purgeArtifactVersions(query: PurgeArtifactsQuery): Promise<number>;
  /**
   * Takes the retention sweep for `holder` (a node) for `ttlMs`, or extends it if `holder` has it:
   * false while another holder's has not expired. One process holding the store (SQLite) always
   * gets it.
   */
  claimSweep(holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the sweep up, if `holder` has it. */
  releaseSweep(holder: string): Promise<void>;
}

/**
 * Checks a purge's statuses and limit: `running` is refused (a run going on is never purged), as
 * is an empty list or an unknown status, each with an `InvalidInputError` naming it.
 *
 * @example
 * ```ts
 * checkPurgeRunsQuery({ statuses: ['completed'], before: Date.now() - 30 * DAY, limit: 500 })
 * ```
 */
export function checkPurgeRunsQuery(query: PurgeRunsQuery): void {
  if (!Array.isArray(query.statuses) || query.statuses.length === 0) {
    throw new InvalidInputError(`statuses: expected one or more of ${PURGEABLE_STATUSES.join(', ')}`);
  }
  for (const status of query.statuses) {
    if (!PURGEABLE_STATUSES.includes(status)) {
      throw new InvalidInputError(
        `statuses: ${JSON.stringify(status)} can't be purged (expected ${PURGEABLE_STATUSES.join(', ')}; a running run never is)`,
      );
    }
  }
  checkTime(query.before, 'before');
  checkBatch(query.limit);
}

/** Checks a time in ms since the epoch. */
export function checkTime(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new InvalidInputError(`${name}: expected a time in ms since the epoch, got ${String(value)}`);
  }
}

/** Checks a batch size: a whole number from 1 to 100,000. */
export function checkBatch(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100_000) {
    throw new InvalidInputError(`limit: expected a whole number from 1 to 100000, got ${String(limit)}`);
  }
}

/** Checks how many versions to keep: a whole number of at least 1. */
export function checkKeepVersions(keep: number): void {
  if (!Number.isSafeInteger(keep) || keep < 1) {
    throw new InvalidInputError(`keepVersions: expected a whole number of at least 1, got ${String(keep)}`);
  }
}

/**
 * Whether `agent` is one `selection` covers.
 *
 * @example
 * ```ts
 * coversAgent({ exceptAgents: ['support'] }, 'billing') // true
 * ```
 */
export function coversAgent(selection: AgentSelection | undefined, agent: string): boolean {
  if (selection === undefined) return true;
  return 'agent' in selection ? selection.agent === agent : !selection.exceptAgents.includes(agent);
}

/** Whether `app` is one `selection` covers; a row of no app (a run's artifact) only by a rule for every app. */
export function coversApp(selection: AppSelection | undefined, app: string | undefined): boolean {
  if (selection === undefined) return true;
  if ('app' in selection) return app !== undefined && selection.app === app;
  return app === undefined || !selection.exceptApps.includes(app);
}

/** The app an artifact scope belongs to: `user:<app>:<principal>`'s, a session's app, none for `run:<id>`. */
export function artifactScopeApp(
  scope: string,
  sessionApp: (sessionId: string) => string | undefined,
): string | undefined {
  if (scope.startsWith('user:'))
    return scope.slice(5, scope.indexOf(':', 5) === -1 ? undefined : scope.indexOf(':', 5));
  if (scope.startsWith('session:')) return sessionApp(scope.slice(8));
  return undefined;
}
