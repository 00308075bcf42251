import type { Agent } from '../agent.js';
import type { Budget, StoredRecord } from '../journal/records.js';
import type { RunRow, Store } from '../store/store.js';
import type { HubOptions } from '../workers/worker-hub.js';
import type { RetryPolicy } from './backoff.js';
import type { Policy } from './policy.js';
import type { RetentionOptions } from './retention-rules.js';
import type { ArtifactOptions, MemoryOptions } from './services.js';

/** How to set up the runtime. */
export interface WardrikOptions {
  /** Where runs live. `sqliteStore('./.wardrik/wardrik.db')` for one node. */
  readonly store: Store;
  readonly agents: readonly Agent[];
  /** Retries of repeatable calls that throw or time out. Default 3 tries, 200 ms doubling to 5 s. */
  readonly toolRetry?: Partial<RetryPolicy>;
  /** Retries of model calls that fail. Default 4 tries, 500 ms doubling to 20 s. */
  readonly modelRetry?: Partial<RetryPolicy>;
  /** Re-drive runs that were running when the process stopped. Default true. */
  readonly recover?: boolean;
  /**
   * `true` (default): the answer of a call that is not repeatable is on disk before the model
   * sees it, so a crash after that never parks the call in doubt. `false` saves that fsync per
   * such call: the answer rides to disk with the next barrier, and a crash in between parks the
   * call `in_doubt` (still never repeated on its own).
   */
  readonly durableAnswers?: boolean;
  /** The clock, in ms since the epoch. */
  readonly now?: () => number;
  /** Workers: trust, waiting and timing settings (`trustedWorkers: true` stops labelling their answers `outside`). */
  readonly workers?: HubOptions;
  /** Server-wide policy: its rules are tried after each agent's own (see `Policy`). */
  readonly policy?: Policy;
  /**
   * This node's name, in the leases it holds (unique among the nodes sharing a store). Default:
   * host, pid and a random part.
   */
  readonly node?: string;
  /**
   * How long a lease on a run lasts unless renewed (ms; renewed every third of it). On a store
   * shared by many nodes this is how long a dead node's runs wait before another takes them
   * over. Default 5 s.
   */
  readonly leaseMs?: number;
  /** The most runs this node drives at once; the rest wait for it, or for another node. Default 10,000. */
  readonly maxRuns?: number;
  /**
   * How often this node looks for runs to take over (a dead node's, or a request's). Default 500 ms:
   * a dead node's runs advance again within a lease and this.
   */
  readonly claimIntervalMs?: number;
  /** How long a toolset may take to say which tools it offers before a step goes on without it (ms). Default 10 s. */
  readonly toolsetTimeoutMs?: number;
  /** Long-term memory across sessions: where it is kept, semantic search, adding sessions after each run. */
  readonly memory?: MemoryOptions;
  /** Artifacts (named, versioned files of sessions and principals): where they are kept, the largest. */
  readonly artifacts?: ArtifactOptions;
  /**
   * What is deleted, and when: ended runs after N days, idle sessions, old memories and artifact
   * versions, for every agent or per agent; swept in the background by one node at a time (see
   * `Retention`). Without it (the default) nothing is ever deleted.
   */
  readonly retention?: RetentionOptions;
}

/** How to start a run. */
export interface StartOptions {
  /** Whom the run acts for. Default `local`. */
  readonly principal?: string;
  /** Limits for this run, replacing the agent's where given. */
  readonly budget?: Budget;
  /**
   * The session the run continues (see `createSession`): the model sees the session's earlier
   * conversation, and the run reads and writes its state. Runs of a session take turns: starting
   * one while the run before is going throws `SessionBusyError`.
   */
  readonly session?: string;
  /**
   * Whether `start` resolves only once the run's start is on disk (a durability barrier), so that
   * the id it returns names a run a crash can't lose. Default `true`. `false` is for a caller that
   * tells nobody the id before the run parks or ends (as `run` does, which is never durable at its
   * start): the start then rides to disk with the run's first barrier (a call's intent, a park, its
   * end), one commit and fsync fewer; a crash before that leaves no run at all. A run that
   * continues a `session` always starts durably. `run` ignores this option.
   *
   * @example
   * ```ts
   * // The caller waits for the end and hands out nothing before it: no barrier at the start.
   * const { runId } = await wardrik.start('support', 'Where is order A1?', { durable: false })
   * const result = await wardrik.wait(runId)
   * ```
   */
  readonly durable?: boolean;
}

/** A run with its journal. */
export interface RunDetails extends RunRow {
  readonly journal: readonly StoredRecord[];
}

/** Who answers a park and which call they were shown. */
export interface AnswerOptions {
  /** The park's `callHash` as the person saw it: binds the answer to that exact call. */
  readonly callHash: string;
  /** Who answers. Default `local`. */
  readonly by?: string;
}
