import { type Answer, mergeLabels } from '@wardrik/core';
import { agentOfTool } from '../../agents/agent-tool.js';
import { isTransferTool, transferRequest } from '../../agents/transfer.js';
import type { JournalRecord, StateWrite } from '../../journal/records.js';
import { DURABLE, NOT_DURABLE, type WriteOptions } from '../run/run-writer.js';
import { storedWrites } from '../run/state-values.js';
import { storableAnswer } from '../storable.js';
import type { Tried } from './attempt-with-retries.js';
import { toldOfEdit } from './call-outcomes.js';
import type { CallScope, CallTarget } from './call-scope.js';
import { afterTool } from './tool-callbacks.js';

/**
 * Settles a call with how its attempts came out: the answer made storable (and told of a person's
 * edit, and given to the agent's `afterTool` callback), then either a park (the tool parked: a
 * person or long-running work answers in its place) or the answer journaled with the state the
 * call wrote, what its child run handed back, and the transfer it asked for.
 */
export async function settleCall(run: CallScope, target: CallTarget, tried: Tried): Promise<void> {
  const { call, tool } = target;
  let answer = storableAnswer(tried.answer, tried.spent);
  if (call.editedBy) answer = toldOfEdit(answer, call);
  if (answer.type !== 'park' && run.agent.callbacks.afterTool) answer = await afterTool(run, { call, tool }, answer);
  if (answer.type === 'park') return parkCall(run, target, answer);
  // The writes of a call that answered on its own (not one that threw, was lost or gave up) go with its answer.
  const changes = answer.type === 'error' && answer.code === 'thrown' ? undefined : tried.stateChanges;
  let writes: StateWrite[] | undefined;
  if (changes?.length) {
    const labels = mergeLabels(run.state.labels, answer.labels);
    writes = changes.map((change) => ({ ...change, labels }));
  }
  const handedBack = tool && agentOfTool(tool) ? await run.childWrites(call.callId) : undefined;
  if (handedBack?.length) writes = [...(writes ?? []), ...handedBack];
  const answered = run.answered(call, answer, writes ? { state: writes } : undefined);
  const transfer = tool && isTransferTool(tool) && answer.type === 'ok' ? transferRequest(call.arguments) : undefined;
  const durable = !tried.repeatable && run.deps.durableAnswers;
  const options: WriteOptions = writes
    ? { durable, state: storedWrites(writes, run.state) }
    : durable
      ? DURABLE
      : NOT_DURABLE;
  await run.writer.write(transfer ? [answered, transferRecord(run, target, transfer)] : [answered], options);
  if (writes) target.values.apply(writes);
}

/** The record of a transfer the call asked for (the run goes on under another agent). */
function transferRecord(
  run: CallScope,
  { call }: CallTarget,
  transfer: NonNullable<ReturnType<typeof transferRequest>>,
): JournalRecord {
  return run.writer.record('agent-transferred', { callId: call.callId, from: run.agent.name, ...transfer });
}

/** The tool parked: a person (or, for `external`, long-running work) answers in its place. */
async function parkCall(run: CallScope, { call }: CallTarget, answer: Answer & { type: 'park' }): Promise<void> {
  const external = answer.external;
  const parked = await run.park(external ? 'external' : 'tool', answer.reason, {
    call,
    measures: answer.measures,
    details: answer.details,
    external: {
      ...(external
        ? {
            handle: external.handle,
            ...(external.deadlineMs === undefined ? {} : { deadline: run.deps.now() + external.deadlineMs }),
          }
        : {}),
      // An answer a person gives in the tool's place carries what the tool's own would have.
      ...(answer.labels.length ? { resultLabels: answer.labels } : {}),
    },
  });
  if (external) run.deps.onExternalPark?.(parked);
}
