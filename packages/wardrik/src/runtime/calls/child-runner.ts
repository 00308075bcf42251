import type { ChildRunner } from '../../agents/agent-tool.js';
import { childRunId } from '../../agents/child-runs.js';
import type { StateWrite } from '../../journal/records.js';
import type { CallState, RunState } from '../../journal/state.js';
import { DURABLE } from '../run/run-writer.js';
import type { CallScope } from './call-scope.js';

/** What a call of an agent tool runs its child with: the child's link is journaled durably first. */
export function childRunner(run: CallScope, call: CallState, idempotencyKey: string): ChildRunner {
  return async ({ agent, input }) => {
    let child = run.state.children.get(call.callId);
    if (child === undefined) {
      child = childRunId(idempotencyKey);
      // A barrier: the parent's step and intent reach the disk before the child can act.
      const started = run.writer.record('child-run-started', { callId: call.callId, childRunId: child, agent });
      await run.writer.write([started], DURABLE);
    }
    return run.deps.runChild({
      childRunId: child,
      agent,
      input,
      parent: { runId: run.runId, callId: call.callId },
      principal: run.state.principal,
      labels: [...run.state.labels],
      session: run.state.sessionId,
      app: run.state.app,
      state: runOnlyValues(run.state),
      budget: run.budgetLeft(),
      signal: run.abort.signal,
    });
  };
}

/** The run-only state of a run as it stands, as writes a child run starts with. */
function runOnlyValues(state: RunState): StateWrite[] {
  const values: StateWrite[] = [];
  for (const [key, entry] of state.runOnlyState) values.push({ key, value: entry.value, labels: entry.labels });
  return values;
}
