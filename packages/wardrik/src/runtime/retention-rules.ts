import { InvalidInputError } from '../errors.js';
import {
  type AgentSelection,
  type AppSelection,
  ENDED_STATUSES,
  type PurgeableStatus,
} from '../store/retention-store.js';

/** A number of days, or `'forever'` (never deleted: what a rule left out means too). */
export type RetentionDays = number | 'forever';

/**
 * How long what Wardrik keeps is kept. A rule left out keeps its kind forever: nothing is ever
 * deleted that a rule did not ask for.
 */
export interface RetentionRules {
  /** Days an ended run (completed, failed, cancelled) is kept after it ended, with its journal and parks. */
  readonly endedRunsDays?: RetentionDays;
  /** Days a parked run is kept after it parked: its open parks go with it, unanswered. Default forever. */
  readonly parkedRunsDays?: RetentionDays;
  /**
   * Days a session is kept after it was last used (its state and artifacts go with it). A run
   * that took a turn in a session is its conversation: it is kept while the session is, then
   * follows the runs' rules.
   */
  readonly idleSessionsDays?: RetentionDays;
  /** Days a memory is kept after it was said (memories belong to an agent's app). */
  readonly memoriesDays?: RetentionDays;
  /** How many versions of each artifact are kept (the newest); `'all'` keeps every one. */
  readonly artifactVersions?: number | 'all';
}

/**
 * Retention: rules for every agent, rules of particular agents replacing them key by key, and how
 * the background sweep works (one node sweeps at a time, a batch at a time).
 *
 * @example
 * ```ts
 * const retention: RetentionOptions = {
 *   endedRunsDays: 30,
 *   idleSessionsDays: 90,
 *   artifactVersions: 10,
 *   agents: { audit: { endedRunsDays: 'forever' } },
 * }
 * ```
 */
export interface RetentionOptions extends RetentionRules {
  /** Rules of particular agents, by name: each key given replaces the rule above for that agent. */
  readonly agents?: Readonly<Record<string, RetentionRules>>;
  /** How often a node sweeps (ms). Default 10 minutes. */
  readonly sweepIntervalMs?: number;
  /** How many rows one batch deletes (one short transaction). Default 500. */
  readonly batchSize?: number;
  /** The pause between two batches (ms), in which the store serves runs. Default 20. */
  readonly pauseMs?: number;
}

export const DAY_MS = 86_400_000;
const RULE_KEYS = ['endedRunsDays', 'parkedRunsDays', 'idleSessionsDays', 'memoriesDays', 'artifactVersions'] as const;
const OPTION_KEYS = [...RULE_KEYS, 'agents', 'sweepIntervalMs', 'batchSize', 'pauseMs'];

/**
 * Checks retention options, throwing an `InvalidInputError` that names the setting (`where`
 * prefixes it: `config.retention`).
 *
 * @example
 * ```ts
 * checkRetention({ endedRunsDays: 30 }, 'retention') // fine
 * checkRetention({ endedRunsDays: -1 }, 'retention') // throws: retention.endedRunsDays: expected …
 * ```
 */
export function checkRetention(retention: unknown, where: string): RetentionOptions | undefined {
  if (retention === undefined) return undefined;
  if (!isObject(retention)) throw new InvalidInputError(`${where}: expected an object such as { endedRunsDays: 30 }`);
  for (const key of Object.keys(retention)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new InvalidInputError(`${where}.${key}: unknown setting (expected ${OPTION_KEYS.join(', ')})`);
    }
  }
  checkRules(retention, where);
  const agents = retention['agents'];
  if (agents !== undefined) {
    if (!isObject(agents)) throw new InvalidInputError(`${where}.agents: expected an object of rules by agent name`);
    for (const [agent, rules] of Object.entries(agents)) {
      const at = `${where}.agents.${agent}`;
      if (!isObject(rules)) throw new InvalidInputError(`${at}: expected rules such as { endedRunsDays: 7 }`);
      for (const key of Object.keys(rules)) {
        if (!(RULE_KEYS as readonly string[]).includes(key)) {
          throw new InvalidInputError(`${at}.${key}: unknown rule (expected ${RULE_KEYS.join(', ')})`);
        }
      }
      checkRules(rules, at);
    }
  }
  for (const [key, least] of [
    ['sweepIntervalMs', 1],
    ['batchSize', 1],
    ['pauseMs', 0],
  ] as const) {
    const value = retention[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= least)) {
      throw new InvalidInputError(`${where}.${key}: expected a whole number of at least ${least}, got ${show(value)}`);
    }
  }
  return retention as RetentionOptions;
}

function checkRules(rules: Record<string, unknown>, where: string): void {
  for (const key of ['endedRunsDays', 'parkedRunsDays', 'idleSessionsDays', 'memoriesDays'] as const) {
    const value = rules[key];
    if (value === undefined || value === 'forever') continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new InvalidInputError(
        `${where}.${key}: expected a number of days above 0, or 'forever', got ${show(value)}`,
      );
    }
  }
  const versions = rules['artifactVersions'];
  if (versions !== undefined && versions !== 'all' && !(Number.isSafeInteger(versions) && (versions as number) >= 1)) {
    throw new InvalidInputError(
      `${where}.artifactVersions: expected a whole number of versions of at least 1, or 'all', got ${show(versions)}`,
    );
  }
}

/** Whether the options ask for anything to be deleted at all. */
export function deletesAnything(retention: RetentionOptions | undefined): boolean {
  if (retention === undefined) return false;
  const asks = (rules: RetentionRules) =>
    RULE_KEYS.some((key) => rules[key] !== undefined && rules[key] !== 'forever' && rules[key] !== 'all');
  return asks(retention) || Object.values(retention.agents ?? {}).some(asks);
}

/** One batch query of a sweep, before its time is filled in. */
export type SweepTask =
  | {
      readonly kind: 'runs';
      readonly statuses: readonly PurgeableStatus[];
      readonly keepMs: number;
      readonly agents: AgentSelection;
    }
  | { readonly kind: 'sessions'; readonly keepMs: number; readonly agents: AgentSelection }
  | { readonly kind: 'memories'; readonly keepMs: number; readonly apps: AppSelection }
  | { readonly kind: 'artifact_versions'; readonly keepVersions: number; readonly apps: AppSelection };

/**
 * What a sweep deletes, as queries: each rule once for the agents that set it and once for every
 * other agent (the general rule; agents no node defines any more included). Memories and
 * artifacts belong to an app: the agents of one app that disagree keep the longest.
 *
 * @example
 * ```ts
 * sweepTasks({ endedRunsDays: 30, agents: { audit: { endedRunsDays: 'forever' } } }, [{ name: 'audit', app: 'audit' }])
 * // [{ kind: 'runs', statuses: ['completed', 'failed', 'cancelled'], keepMs: 30 days, agents: { exceptAgents: ['audit'] } }]
 * ```
 */
export function sweepTasks(
  retention: RetentionOptions,
  agents: readonly { readonly name: string; readonly app: string }[],
): SweepTask[] {
  const tasks: SweepTask[] = [];
  const overrides = retention.agents ?? {};
  const byAgent = (
    key: 'endedRunsDays' | 'parkedRunsDays' | 'idleSessionsDays',
    make: (keepMs: number, agents: AgentSelection) => SweepTask,
  ) => {
    const named = Object.keys(overrides).filter((agent) => overrides[agent]?.[key] !== undefined);
    const general = daysMs(retention[key]);
    if (general !== undefined) tasks.push(make(general, { exceptAgents: named }));
    for (const agent of named) {
      const own = daysMs(overrides[agent]?.[key]);
      if (own !== undefined) tasks.push(make(own, { agent }));
    }
  };
  byAgent('endedRunsDays', (keepMs, selection) => ({
    kind: 'runs',
    statuses: ENDED_STATUSES,
    keepMs,
    agents: selection,
  }));
  byAgent('parkedRunsDays', (keepMs, selection) => ({ kind: 'runs', statuses: ['parked'], keepMs, agents: selection }));
  byAgent('idleSessionsDays', (keepMs, selection) => ({ kind: 'sessions', keepMs, agents: selection }));

  // By app: an app's rule is the longest its agents with rules of their own ask for.
  const appOf = new Map(agents.map((agent) => [agent.name, agent.app]));
  const byApp = <V>(
    key: 'memoriesDays' | 'artifactVersions',
    value: (rules: RetentionRules) => V | undefined,
    longest: (left: V | undefined, right: V | undefined) => V | undefined,
    make: (value: V, apps: AppSelection) => SweepTask,
  ) => {
    const apps = new Map<string, V | undefined>();
    for (const [agent, rules] of Object.entries(overrides)) {
      if (rules[key] === undefined) continue;
      const app = appOf.get(agent) ?? agent;
      apps.set(app, apps.has(app) ? longest(apps.get(app), value(rules)) : value(rules));
    }
    const general = value(retention);
    if (general !== undefined) tasks.push(make(general, { exceptApps: [...apps.keys()] }));
    for (const [app, own] of apps) if (own !== undefined) tasks.push(make(own, { app }));
  };
  byApp(
    'memoriesDays',
    (rules) => daysMs(rules.memoriesDays),
    (left, right) => (left === undefined || right === undefined ? undefined : Math.max(left, right)),
    (keepMs, apps) => ({ kind: 'memories', keepMs, apps }),
  );
  byApp(
    'artifactVersions',
    (rules) => (typeof rules.artifactVersions === 'number' ? rules.artifactVersions : undefined),
    (left, right) => (left === undefined || right === undefined ? undefined : Math.max(left, right)),
    (keepVersions, apps) => ({ kind: 'artifact_versions', keepVersions, apps }),
  );
  return tasks;
}

/** A rule's days in ms; undefined for forever (or no rule). */
function daysMs(days: RetentionDays | undefined): number | undefined {
  return typeof days === 'number' ? Math.round(days * DAY_MS) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
