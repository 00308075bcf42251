import { createHash } from 'node:crypto';
import { type Answer, type ExternalOutcome, error, type Label, ok, started } from '@wardrik/core';
import type { Budget, ParentLink, StateWrite } from '../journal/records.js';
import type { RunResult } from '../runtime/run-result.js';

/** The handle of the `external` park a parent waits on while its child run is parked. */
export function childHandle(childRunId: string): string {
  return `child:${childRunId}`;
}

/** The child run a handle names, if it names one. */
export function childOfHandle(handle: string | undefined): string | undefined {
  return handle?.startsWith('child:') ? handle.slice(6) : undefined;
}

/**
 * The id of the child run a call starts: derived from the call's idempotency key, so that a call
 * repeated after a crash finds the child it started instead of starting another.
 */
export function childRunId(idempotencyKey: string): string {
  const hex = createHash('sha256').update(`child:${idempotencyKey}`).digest('hex');
  return `run_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** What starting a child run takes. */
export interface ChildRunRequest {
  readonly childRunId: string;
  readonly agent: string;
  readonly input: string;
  readonly parent: ParentLink;
  readonly principal: string;
  /** The parent's labels: the child starts with them. */
  readonly labels: readonly Label[];
  /**
   * The invocation the child shares with its parent (as ADK's sub-agents share theirs): the
   * parent's session (its state, read and written live), its app (whose `user:` and `app:` state
   * it reads), and its run-only state as it stands now (`temp:` keys, and unprefixed keys without
   * a session), which the child starts with and whose writes go back with the call's answer.
   */
  readonly session: string | undefined;
  readonly app: string;
  readonly state: readonly StateWrite[];
  /** What is left of the parent's budget. */
  readonly budget: Budget;
  /** The parent's call signal: a cancelled parent cancels its child. */
  readonly signal: AbortSignal;
}

/** What child runs need of the runtime. */
export interface ChildRunDeps {
  exists(runId: string): Promise<boolean>;
  start(request: ChildRunRequest): Promise<void>;
  wait(runId: string): Promise<RunResult>;
  cancel(runId: string, reason: string): Promise<unknown>;
}

/**
 * Runs a child run for a call and answers the call with how it came out: started unless it
 * exists (a repeated call finds it), then waited for until it ends or parks. A parked child parks
 * the parent (an `external` park, handle `child:<id>`), which its end answers.
 */
export async function runChild(deps: ChildRunDeps, request: ChildRunRequest): Promise<Answer> {
  const id = request.childRunId;
  if (!(await deps.exists(id))) {
    try {
      await deps.start(request);
    } catch (thrown) {
      if (!(await deps.exists(id))) throw thrown; // else another try started it meanwhile: wait for it
    }
  }
  const onAbort = () => {
    // Cancelled (an Error reason), not the process stopping: the child is cancelled with its parent.
    if (request.signal.reason instanceof Error) deps.cancel(id, 'its parent run was cancelled').catch(() => {});
  };
  request.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return childAnswer(request.agent, await deps.wait(id));
  } finally {
    request.signal.removeEventListener('abort', onAbort);
  }
}

/** The answer a call of an agent tool gets from its child run's result. */
export function childAnswer(agent: string, result: RunResult): Answer {
  const { labels, measures } = result;
  switch (result.status) {
    case 'completed':
      return ok(result.output ?? '', { labels, measures });
    case 'parked': {
      const why = result.parks.map((park) => `${park.kind}: ${park.reason}`).join('; ');
      return started(`waiting for agent ${agent} (run ${result.runId}), which waits: ${why}`, {
        handle: childHandle(result.runId),
        labels,
      });
    }
    default:
      return error(`agent ${agent} (run ${result.runId}) ${result.status}: ${result.error ?? 'no reason given'}`, {
        code: 'child_failed',
        labels,
        measures,
      });
  }
}

/** The result a parent parked on its child gets when the child ends. */
export function childOutcome(agent: string, result: RunResult): ExternalOutcome {
  const { labels, measures } = result;
  if (result.status === 'completed') return { value: result.output ?? '', labels, measures };
  return {
    error: `agent ${agent} (run ${result.runId}) ${result.status}: ${result.error ?? 'no reason given'}`,
    labels,
    measures,
  };
}
