import type { CallState } from '../../journal/state.js';
import { attemptWithRetries } from './attempt-with-retries.js';
import { inDoubtReason } from './call-outcomes.js';
import type { CallScope, CallTarget } from './call-scope.js';
import { decideCall, refuseInvalid } from './decide-call.js';
import { resolveCall, SETTLED } from './resolve-call.js';
import { settleCall } from './settle-call.js';

/**
 * Runs the calls of a step that are not answered yet: one whose intent is on disk but may not be
 * repeated parks `in_doubt` (recovery cannot know whether it ran); the others run side by side.
 */
export async function runPending(run: CallScope, pending: readonly CallState[]): Promise<void> {
  for (const call of pending) {
    if (call.status === 'started' && !call.repeatable) {
      const holder = call.holder && call.holder.incarnation !== run.deps.incarnation ? call.holder : undefined;
      await run.park('in_doubt', inDoubtReason(holder), {
        call,
        external: {
          ...(call.labels?.length ? { resultLabels: call.labels } : {}),
          ...(holder ? { holder } : {}),
        },
      });
    }
  }
  const runnable = pending.filter(
    (call) => call.status === 'requested' || call.status === 'to-run' || (call.status === 'started' && call.repeatable),
  );
  if (runnable.length === 1) await executeCall(run, runnable[0] as CallState);
  else if (runnable.length > 1) await Promise.all(runnable.map((call) => executeCall(run, call)));
}

/**
 * A call's phases in order: resolve ("who runs this?") → decide (callbacks, policy, gates) →
 * attempt (with retries and timeouts) → settle (answer or park). Each phase may settle the call
 * itself (answered or parked); a phase that needs no await adds none.
 */
export async function executeCall(run: CallScope, call: CallState): Promise<void> {
  const invalid = refuseInvalid(run, call);
  if (invalid) {
    await invalid;
    return;
  }
  // A call whose intent is on disk passed the policy before the process stopped: recovery
  // repeats it as it was (its tool may not even be offered yet, e.g. a worker reconnecting).
  const resumed = call.status === 'started';
  const values = await run.stateValues();
  if (!run.tools.current) await run.resolveTools(values); // after a restart: this step's tools again
  const target: CallTarget = { call, resumed, values, tool: undefined, rule: undefined };
  let tool = resolveCall(run, target);
  if (tool instanceof Promise) tool = await tool;
  if (tool === SETTLED) return;
  target.tool = tool;
  let rule = decideCall(run, target);
  if (rule instanceof Promise) rule = await rule;
  if (rule === SETTLED) return;
  target.rule = rule;
  const tried = await attemptWithRetries(run, target);
  if (tried !== SETTLED) await settleCall(run, target, tried);
}
