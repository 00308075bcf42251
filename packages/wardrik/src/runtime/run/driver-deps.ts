import type { Answer, CompleteExternal, RequestInputFor } from '@wardrik/core';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { ChildRunRequest } from '../../agents/child-runs.js';
import type { Park, StateWrite } from '../../journal/records.js';
import type { Store } from '../../store/store.js';
import type { WorkerHub } from '../../workers/worker-hub.js';
import type { RetryPolicy } from '../backoff.js';
import type { CallServices } from '../calls/attempt-call.js';
import type { EventHub } from '../events.js';
import type { Hooks } from '../hooks.js';
import type { Policy } from '../policy.js';

/** What a driver needs from the runtime. */
export interface DriverDeps {
  readonly store: Store;
  readonly hub: EventHub;
  readonly toolRetry: RetryPolicy;
  readonly modelRetry: RetryPolicy;
  readonly now: () => number;
  /**
   * Whether the answer of a call that is not repeatable is on disk before the model sees it
   * (default). Otherwise it rides to disk with the next barrier, and a crash in between parks the
   * call `in_doubt` although the model had seen its answer.
   */
  readonly durableAnswers: boolean;
  /** The workers connected to this node, for agents that name worker tools. */
  readonly workers?: WorkerHub;
  /** Server-wide policy, tried after the agent's. */
  readonly policy?: Policy;
  /** Whether a person allowed `tool` for `agent` (a standing decision). */
  readonly isAllowedForAgent?: (agent: string, tool: string) => boolean;
  /** How long a toolset may take to say which tools it offers before a step goes on without it. */
  readonly toolsetTimeoutMs: number;
  /** Told of each `external` park this driver journals (for its deadline, and results that came first). */
  readonly onExternalPark?: (park: Park) => void;
  /** Delivers results of long-running work; tools get it on their context. */
  readonly completeExternal?: CompleteExternal;
  /** Asks a person for long-running work; tools get it on their context. */
  readonly requestInputFor?: RequestInputFor;
  /** The memory and artifact services a call's context uses, scoped to its run. */
  readonly callServices?: CallServices;
  /** The runtime's agents: whom a run may be transferred to, and the tools added to each. */
  readonly agents: AgentDirectory;
  /** Starts (or finds) the child run of a call of an agent tool, and answers the call with how it came out. */
  readonly runChild: (request: ChildRunRequest) => Promise<Answer>;
  /** The run-only state writes an ended child run made (see `RunState.runOnlyWrites`): they go back to its parent. */
  readonly childStateWrites: (childRunId: string) => Promise<readonly StateWrite[]>;
  /** What happens between journal records is told here (telemetry listens). */
  readonly hooks: Hooks;
  /** This process's life as its node (see `LeaseTerms.incarnation`). */
  readonly incarnation: string;
}
