import type { TrippedGuardrail } from '../../agents/final-answer.js';
import type { EndStatus, JournalRecord, StateWrite } from '../../journal/records.js';
import { isEnded } from '../../store/store.js';
import type { CallScope } from '../calls/call-scope.js';
import { openParkIds } from './run-writer.js';
import { storedWrites } from './state-values.js';

/** How a run ends: its output, or its error (and the guardrail that stopped it, if one did). */
export interface EndDetail {
  readonly output?: string;
  readonly error?: string | undefined;
  readonly guardrail?: TrippedGuardrail;
}

/** How a run ends, and what its end record carries. */
export interface EndOptions {
  readonly status: EndStatus;
  readonly detail: EndDetail;
  /** The state writes that go with the end (the agent's `outputKey`). */
  readonly state?: readonly StateWrite[];
}

/** The record that ends the run. */
export function endRecord(run: CallScope, { status, detail, state }: EndOptions): JournalRecord {
  return run.writer.record('run-ended', {
    status,
    ...(detail.output === undefined ? {} : { output: detail.output }),
    ...(detail.error === undefined ? {} : { error: detail.error }),
    labels: [...run.state.labels],
    measures: { ...run.state.measures },
    ...(state ? { state } : {}),
    ...(detail.guardrail ? { guardrail: detail.guardrail } : {}),
  });
}

/**
 * Ends the run (once), durably, closing its open parks. `cancelTaken`: the cancel it ends with was
 * requested by another node (its end clears the request).
 */
export async function endRun(
  run: CallScope,
  { status, detail, cancelTaken }: Omit<EndOptions, 'state'> & { readonly cancelTaken: boolean },
): Promise<'ended'> {
  if (isEnded(run.state.status)) return 'ended'; // a run ends once
  const closeParks = openParkIds(run.state);
  const outputKey = run.agent.outputKey;
  // The agent's outputKey takes the final answer, labelled as the answer is (ADK's output_key).
  const writes: StateWrite[] | undefined =
    status === 'completed' && outputKey !== undefined && detail.output !== undefined
      ? [{ key: outputKey, value: detail.output, labels: [...run.state.labels] }]
      : undefined;
  await run.writer.write([endRecord(run, { status, detail, state: writes })], {
    durable: true,
    row: true,
    closeParks,
    cancelTaken: status === 'cancelled' && cancelTaken,
    state: writes ? storedWrites(writes, run.state) : undefined,
  });
  return 'ended';
}

/** Why a run whose model was cut off at its output token limit failed. */
export function truncatedError(step: number): string {
  return (
    `the model's answer at step ${step} was cut off at its output token limit, so it may be incomplete: ` +
    'its text is not taken as the answer and its tool calls were not run (raise the model’s maxOutputTokens)'
  );
}
