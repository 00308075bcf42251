/**
 * Who may do what. Roles:
 * - `admin`: everything, including tokens.
 * - `operator`: reads all runs (of agents in its scope), answers parks, cancels runs.
 * - `user`: starts runs (of agents in its scope), reads and cancels its own runs.
 * - `worker`: serves the agents in its scope (`agent.serve`); nothing else.
 */
export type Role = 'admin' | 'operator' | 'user' | 'worker';

/** What kind of party a principal is. */
export type PrincipalKind = 'user' | 'service' | 'worker';

/** Someone or something that acts on Wardrik, holding tokens. */
export interface Principal {
  readonly id: string;
  readonly name: string;
  readonly kind: PrincipalKind;
  readonly role: Role;
  /** The agents it may run, read or serve; `['*']` for all. */
  readonly agents: readonly string[];
  readonly createdAt: number;
}

/** A token as listed: never its secret, which is shown once when created and stored hashed. */
export interface TokenInfo {
  readonly id: string;
  readonly principalId: string;
  readonly createdAt: number;
  readonly revokedAt?: number;
  /** When it stops working on its own (ms since the epoch); none: it works until revoked. */
  readonly expiresAt?: number;
}

/** Every action the API checks. */
export type Action =
  | 'agents.list'
  | 'run.start'
  | 'run.read'
  | 'run.cancel'
  | 'park.read'
  | 'park.answer'
  | 'labels.release'
  | 'state.edit'
  | 'app-state.edit'
  | 'tokens.manage'
  | 'agent.serve'
  | 'workers.list';

/** The facts an action is checked against. */
export interface Resource {
  /** The agent the action concerns. */
  readonly agent?: string;
  /** The principal the run acts for (for a run or one of its parks). */
  readonly runPrincipal?: string;
}

/** The outcome of a permission check, with a reason a person can read when denied. */
export type Decision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };
