import { type Answer, error, type InputQuestion, mergeLabels, ok } from '@wardrik/core';
import { childOfHandle } from '../../agents/child-runs.js';
import { ParkNotFoundError } from '../../errors.js';
import type { JournalRecord, Park, ParkDecision, ParkKind, StateWrite } from '../../journal/records.js';
import { isEnded, type PendingAnswer } from '../../store/store.js';
import type { CallScope, ParkOptions } from '../calls/call-scope.js';
import { timeOrderedId } from '../ids.js';
import { parkHash } from './park-hash.js';
import { endRecord } from './run-end.js';

/** A person's answer to a park, as the run journals it. */
interface Answering {
  readonly park: Park;
  readonly decision: ParkDecision;
  readonly by: string;
  readonly at: number;
}

/**
 * A run's parks: opening one (the run or a call waits for a person or for work), and journaling a
 * person's answer to one with what it decides for the call or the run.
 */
export class RunParks {
  readonly #run: CallScope;

  constructor(run: CallScope) {
    this.#run = run;
  }

  /** Journals a park of the run (of a call, when `options.call`), durably, and tells hooks. */
  async park(kind: ParkKind, reason: string, options: ParkOptions = {}): Promise<Park> {
    const run = this.#run;
    const { call, measures, details, rule, external = {} } = options;
    const id = timeOrderedId('park');
    const parkedCall = call
      ? {
          callId: call.callId,
          name: call.name,
          arguments: call.arguments,
          idempotencyKey: call.idempotencyKey || `${run.runId}:${call.callId}`,
        }
      : undefined;
    const park: Park = {
      id,
      runId: run.runId,
      kind,
      reason,
      ...(details === undefined ? {} : { details }),
      ...(parkedCall ? { call: parkedCall } : {}),
      ...(measures && Object.keys(measures).length ? { measures } : {}),
      labels: [...run.state.labels],
      callHash: parkHash(id, kind, parkedCall),
      createdAt: run.deps.now(),
      ...(rule ? { rule } : {}),
      ...external,
    };
    await run.writer.write([run.writer.record('run-parked', { park }, { at: park.createdAt })], {
      durable: true,
      row: true,
      parks: [park],
    });
    if (call) run.callSettled(call, kind === 'in_doubt' ? 'in_doubt' : 'parked', rule);
    this.opened(park, rule);
    return park;
  }

  /** Tells hooks a park opened (`rule`: the policy rule that held its call, if one). */
  opened(park: Park, rule?: string): void {
    const run = this.#run;
    const hooks = run.deps.hooks;
    if (!hooks.has('park-opened')) return;
    hooks.emit('park-opened', {
      runId: run.runId,
      agent: run.agent.name,
      trace: run.state.trace,
      parkId: park.id,
      kind: park.kind,
      reason: park.reason,
      ...(park.call ? { tool: park.call.name } : {}),
      ...(rule ? { rule } : {}),
    });
  }

  /**
   * Writes a person's answer to one of this run's parks, atomically and durably. The caller has
   * checked that the park is open and the decision allowed for its kind.
   */
  async answer(park: Park, decision: ParkDecision, by: string): Promise<void> {
    const run = this.#run;
    if (park.kind === 'input' && !run.inputs.isWaiting(park.id) && !this.#asksForWork(park)) {
      await run.inputs.refuseStale(park.id);
    }
    const handedBack = await this.#childWritesFor(park, decision);
    const answering = { park, decision, by, at: run.deps.now() };
    await run.writer.answerPark(this.#answerRecords(answering, handedBack), answering);
    if (park.kind === 'input') run.inputs.answered(park, decision);
    await this.#afterWorkEnded(park);
  }

  /**
   * Journals a person's answer that another node recorded while this one held the run (the park
   * is answered in the store already: see `RunStore.requestAnswer`), durably.
   */
  async recordAnswer(pending: PendingAnswer): Promise<void> {
    const run = this.#run;
    const park = run.state.parks.get(pending.parkId);
    if (park?.status !== 'open') {
      // Journaled already (or its run moved on): only clear the request.
      await run.writer.write([], { durable: true, recordedAnswers: [pending.parkId] });
      return;
    }
    const { decision, by, at } = pending;
    const handedBack = await this.#childWritesFor(park, decision);
    await run.writer.recordAnswer(this.#answerRecords({ park, decision, by, at }, handedBack), park.id);
    if (park.kind === 'input') run.inputs.answered(park, decision);
    await this.#afterWorkEnded(park);
  }

  /**
   * Asks a person for the long-running work call `callId` started (its run waits for it, parked
   * `external`): journals an `input` park of that call. Throws `ParkNotFoundError` when the call
   * waits for no work.
   */
  async askForWork(callId: string, question: InputQuestion): Promise<Park> {
    const run = this.#run;
    const call = run.state.callsById.get(callId);
    if (call?.status !== 'parked' || isEnded(run.state.status)) {
      throw new ParkNotFoundError(`run ${run.runId}: call ${callId} waits for no work now`);
    }
    return run.inputs.askForWork(call, question, run.holder());
  }

  /** Whether `park` (of kind `input`) asks for the work its call started: the call is still parked. */
  #asksForWork(park: Park): boolean {
    return park.call !== undefined && this.#run.state.callsById.get(park.call.callId)?.status === 'parked';
  }

  /** The work an `external` park waited for has its result: the questions asked for it are withdrawn. */
  async #afterWorkEnded(park: Park): Promise<void> {
    const run = this.#run;
    if (park.kind !== 'external' || !park.call || !run.inputs.anyOpen || isEnded(run.state.status)) return;
    await run.inputs.withdrawAll('the work it was asked for ended', park.call.callId);
  }

  /**
   * The run-only state writes handed back by the child run whose end answers `park` (a wait on a
   * child that parked), if it is one; else none.
   */
  async #childWritesFor(park: Park, decision: ParkDecision): Promise<readonly StateWrite[] | undefined> {
    if (park.kind !== 'external' || !park.call || (decision.type !== 'answer' && decision.type !== 'fail')) return;
    return childOfHandle(park.handle) === undefined ? undefined : this.#run.childWrites(park.call.callId);
  }

  /**
   * The records that journal a person's answer to a park: its answer, and what it decides for the
   * call or run. `handedBack`: the state writes of the child run whose end this is (see `#childWritesFor`).
   */
  #answerRecords(answering: Answering, handedBack: readonly StateWrite[] | undefined): JournalRecord[] {
    const run = this.#run;
    const { park, decision, by, at } = answering;
    this.#tellAnswered(answering);
    // At the time the person answered, as the store keeps it.
    const records: JournalRecord[] = [run.writer.record('park-answered', { parkId: park.id, decision, by }, { at })];
    if (park.kind === 'input') return records; // the call that asked goes on with the answer
    const call = park.call ? run.state.callsById.get(park.call.callId) : undefined;
    if (call) {
      const answer = callAnswer(park, decision);
      if (answer) {
        const state = answer.type === 'ok' || park.kind === 'external' ? handedBack : undefined;
        records.push(run.answered(call, answer, state?.length ? { state: [...state] } : undefined));
        return records;
      }
    }
    if (decision.type === 'stop') {
      const stopped =
        park.kind === 'authorize'
          ? 'a person stopped the run instead of signing in'
          : 'a person stopped the run at its budget';
      records.push(endRecord(run, { status: 'failed', detail: { error: decision.reason ?? stopped } }));
    }
    return records;
  }

  #tellAnswered({ park, decision, by, at }: Answering): void {
    const run = this.#run;
    const hooks = run.deps.hooks;
    if (!hooks.has('park-answered')) return;
    hooks.emit('park-answered', {
      runId: run.runId,
      agent: run.agent.name,
      trace: run.state.trace,
      parkId: park.id,
      kind: park.kind,
      decision: decision.type,
      by,
      waitedMs: Math.max(0, at - park.createdAt),
    });
  }
}

/** What a person's `decision` on `park` answers its call with, if it answers it. */
function callAnswer(park: Park, decision: ParkDecision): Answer | undefined {
  const measures = 'measures' in decision && decision.measures ? { measures: decision.measures } : {};
  if (decision.type === 'answer') {
    return ok(decision.value, { labels: mergeLabels(park.resultLabels, decision.labels), ...measures });
  }
  if (park.kind === 'external' && decision.type === 'fail') {
    const reason = `the work it started did not finish: ${decision.reason ?? 'it failed'}`;
    const labels = mergeLabels(park.resultLabels, decision.labels);
    return error(reason, { code: 'external_failed', labels, ...measures });
  }
  if (decision.type === 'fail' || decision.type === 'deny') {
    const reason =
      park.kind === 'approval'
        ? `A person declined this call${decision.reason ? `: ${decision.reason}` : ''}`
        : (decision.reason ?? 'a person failed this call');
    return error(reason, { code: 'declined' });
  }
  return undefined;
}
