import type { Answer } from '@wardrik/core';
import type { CallHolder } from '../../journal/records.js';
import type { CallState } from '../../journal/state.js';
import type { AttemptOutcome, CallOutcome } from '../hooks.js';
import type { Attempt } from './attempt-call.js';

/** How a call answered with `answer` settled: a refusal by policy and a cancel are not the call's failures. */
export function settledOutcome(answer: Answer): CallOutcome {
  if (answer.type === 'ok') return 'ok';
  if (answer.type === 'error' && (answer.code === 'denied' || answer.code === 'cancelled')) return answer.code;
  return 'error';
}

/** How an attempt came out, for hooks. */
export function attemptOutcome(outcome: Attempt): { outcome: AttemptOutcome; error?: string } {
  if (outcome.kind === 'cancelled') return { outcome: 'cancelled' };
  if (outcome.kind === 'timeout') return { outcome: 'timeout', error: `timed out after ${outcome.ms} ms` };
  const answer = outcome.answer;
  if (answer.type === 'ok') return { outcome: 'ok' };
  if (answer.type === 'park') return { outcome: 'parked' };
  return { outcome: answer.code === 'lost' ? 'lost' : 'error', error: answer.reason };
}

export function describeAnswer(answer: Answer): string {
  return answer.type === 'ok' ? 'ok' : answer.reason;
}

/** An answer to a call whose arguments a person edited: the model is told what ran. */
export function toldOfEdit(answer: Answer, call: CallState): Answer {
  const note = `A person (${call.editedBy}) edited the arguments before it ran; it ran with ${JSON.stringify(call.arguments)}`;
  if (answer.type === 'ok') return { ...answer, value: { note, result: answer.value } };
  return { ...answer, reason: `${note}. ${answer.reason}` };
}

/** Why recovery parks a call in doubt: who may have run it, if another process (or node) did. */
export function inDoubtReason(holder: CallHolder | undefined): string {
  if (!holder) return 'the call may have run but its answer was lost (the process stopped); say whether it ran';
  return (
    `the call may have run but its answer was lost: node ${holder.node} (lease epoch ${holder.epoch}) started it ` +
    `at ${new Date(holder.startedAt ?? 0).toISOString()}, then lost the run. It may have stopped, or only paused ` +
    'past its lease and still finish the call: say whether it ran (check its effect before answering retry)'
  );
}
