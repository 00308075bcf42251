import type { Action, Decision, Principal, Resource, Role } from './types.js';

/**
 * How far a role may take an action: `any` (every agent, every principal's runs), `scoped` (the
 * agents of its scope), `own` (its own runs, of the agents of its scope).
 */
type Reach = 'any' | 'scoped' | 'own';

const EVERYTHING: Readonly<Record<Action, Reach>> = {
  'agents.list': 'any',
  'run.start': 'any',
  'run.read': 'any',
  'run.cancel': 'any',
  'park.read': 'any',
  'park.answer': 'any',
  'labels.release': 'any',
  'state.edit': 'any',
  'app-state.edit': 'any',
  'tokens.manage': 'any',
  'agent.serve': 'any',
  'workers.list': 'any',
};

/** The matrix. An action a role does not list is denied to it. */
const GRANTS: Readonly<Record<Role, Readonly<Partial<Record<Action, Reach>>>>> = {
  admin: EVERYTHING,
  operator: {
    'agents.list': 'scoped',
    'run.read': 'scoped',
    'run.cancel': 'scoped',
    'park.read': 'scoped',
    'park.answer': 'scoped',
    'labels.release': 'scoped',
    'state.edit': 'scoped',
    'workers.list': 'any',
  },
  user: {
    'agents.list': 'scoped',
    'run.start': 'scoped',
    'run.read': 'own',
    'run.cancel': 'own',
    'park.read': 'own',
  },
  worker: { 'agent.serve': 'scoped' },
};

/** What each action is called in a reason: "role user may not answer parks". */
const ACTION_WORDS: Readonly<Record<Action, string>> = {
  'agents.list': 'list agents',
  'run.start': 'start runs',
  'run.read': 'read runs',
  'run.cancel': 'cancel runs',
  'park.read': 'read parks',
  'park.answer': 'answer parks',
  'labels.release': 'release labels',
  'state.edit': "edit sessions' state",
  'app-state.edit': 'edit app: state (every principal reads it)',
  'tokens.manage': 'manage tokens',
  'agent.serve': 'serve agents',
  'workers.list': 'list workers',
};

/** Why another principal's run is out of reach, per action a role may take on its own runs only. */
const NOT_OWN: Readonly<Partial<Record<Action, (role: string) => string>>> = {
  'run.read': (role) => `runs of another principal are not visible to role ${role}`,
  'run.cancel': (role) => `runs of another principal may not be cancelled by role ${role}`,
  'park.read': (role) => `parks of another principal's runs are not visible to role ${role}`,
};

const ALLOWED: Decision = Object.freeze({ allowed: true });

function deny(reason: string): Decision {
  return { allowed: false, reason };
}

function reachOf(role: Role, action: Action): Reach | undefined {
  const grants = Object.hasOwn(GRANTS, role) ? GRANTS[role] : undefined;
  return grants !== undefined && Object.hasOwn(grants, action) ? grants[action] : undefined;
}

/** Whether the principal's scope covers `agent` (`'*'` covers every agent). */
function inScope(principal: Principal, agent: string): boolean {
  return principal.agents.includes('*') || principal.agents.includes(agent);
}

function scopeText(principal: Principal): string {
  return principal.agents.length === 0 ? 'none' : principal.agents.join(', ');
}

/**
 * Whether `principal` may take `action` on `resource`, and if not, why (a sentence naming the role
 * or principal and what was refused).
 *
 * The matrix:
 * - `admin`: every action, on every agent and every principal's runs.
 * - `operator`: `agents.list`, `run.read`, `run.cancel`, `park.read`, `park.answer`,
 *   `labels.release`, `state.edit` (a session's keys and its principal's `user:` keys) on the runs
 *   and sessions of any principal, for the agents of its scope. Never `run.start`,
 *   `app-state.edit`, `tokens.manage`, `agent.serve`.
 * - `user`: `agents.list` and `run.start` for the agents of its scope; `run.read`, `run.cancel`,
 *   `park.read` on its own runs (`resource.runPrincipal === principal.id`) of those agents.
 *   Never `park.answer`, `labels.release`, `state.edit`, `tokens.manage`, `agent.serve`.
 * Sessions follow their runs: starting one is `run.start`, reading one `run.read`, deleting one
 * `run.cancel` (`runPrincipal` is the session's principal).
 * - `worker`: `agent.serve` for the agents of its scope, nothing else.
 *
 * A fact left out of `resource` is not checked: `can(user, 'run.read')` answers whether the
 * principal may read runs at all (e.g. before listing them); limit the listing with
 * {@link visibleRunFilter}. Checking one run, pass both its `agent` and its `runPrincipal`.
 *
 * @example
 * ```ts
 * const alice: Principal = {
 *   id: 'prn_a', name: 'alice', kind: 'user', role: 'user', agents: ['support'], createdAt: 0,
 * };
 * can(alice, 'run.start', { agent: 'support' }); // { allowed: true }
 * can(alice, 'run.start', { agent: 'refunds' });
 * // { allowed: false, reason: 'principal alice may not use agent refunds (scope: support)' }
 * can(alice, 'park.answer'); // { allowed: false, reason: 'role user may not answer parks' }
 * can(alice, 'run.read', { agent: 'support', runPrincipal: 'prn_b' });
 * // { allowed: false, reason: 'runs of another principal are not visible to role user' }
 * ```
 */
export function can(principal: Principal, action: Action, resource: Resource = {}): Decision {
  const reach = reachOf(principal.role, action);
  if (reach === undefined) {
    const words = Object.hasOwn(ACTION_WORDS, action) ? ACTION_WORDS[action] : `do ${String(action)}`;
    return deny(`role ${String(principal.role)} may not ${words}`);
  }
  if (reach === 'any') return ALLOWED;
  if (reach === 'own' && resource.runPrincipal !== undefined && resource.runPrincipal !== principal.id) {
    const notOwn = NOT_OWN[action];
    return deny(notOwn === undefined ? `role ${principal.role} may act only on its own runs` : notOwn(principal.role));
  }
  if (resource.agent !== undefined && !inScope(principal, resource.agent)) {
    return deny(`principal ${principal.name} may not use agent ${resource.agent} (scope: ${scopeText(principal)})`);
  }
  return ALLOWED;
}

/**
 * Which runs (and parks of runs) a principal may see, for limiting a listing:
 * - `all`: every run;
 * - `none`: no run at all;
 * - `some`: only runs acting for `principal` (when set) and only runs of `agents` (when set).
 */
export type VisibleRuns =
  | { readonly type: 'all' }
  | { readonly type: 'none' }
  | { readonly type: 'some'; readonly principal?: string; readonly agents?: readonly string[] };

/**
 * What a list of runs or parks shown to `principal` must be limited to; it agrees with
 * `can(principal, 'run.read', …)` and `can(principal, 'park.read', …)` on every run.
 * Admins and unscoped operators see all; scoped operators the runs of their agents; users their
 * own runs (of their agents); workers none.
 *
 * @example
 * ```ts
 * const visible = visibleRunFilter(principal);
 * // Narrow the query where the store can, then filter exactly.
 * const own = visible.type === 'some' ? visible.principal : undefined;
 * const runs = visible.type === 'none' ? [] : await store.listRuns(own === undefined ? {} : { principal: own });
 * const shown = runs.filter((run) => isRunVisible(visible, run));
 * ```
 */
export function visibleRunFilter(principal: Principal): VisibleRuns {
  const reach = reachOf(principal.role, 'run.read');
  if (reach === undefined) return { type: 'none' };
  if (reach === 'any') return { type: 'all' };
  const agents = principal.agents.includes('*') ? undefined : [...principal.agents];
  const only = reach === 'own' ? principal.id : undefined;
  if (agents === undefined && only === undefined) return { type: 'all' };
  return {
    type: 'some',
    ...(only === undefined ? {} : { principal: only }),
    ...(agents === undefined ? {} : { agents }),
  };
}

/**
 * Whether a run (or a park of it) passes a {@link visibleRunFilter} result.
 *
 * @example
 * ```ts
 * const shown = runs.filter((run) => isRunVisible(visibleRunFilter(principal), run));
 * ```
 */
export function isRunVisible(
  visible: VisibleRuns,
  run: { readonly agent: string; readonly principal: string },
): boolean {
  switch (visible.type) {
    case 'all':
      return true;
    case 'none':
      return false;
    case 'some':
      return (
        (visible.principal === undefined || run.principal === visible.principal) &&
        (visible.agents === undefined || visible.agents.includes(run.agent))
      );
  }
}
