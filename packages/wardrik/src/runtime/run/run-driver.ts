import { describeReason, type InputQuestion } from '@wardrik/core';
import type { Agent } from '../../agent.js';
import { firstTripped, trippedError } from '../../agents/final-answer.js';
import { LeaseLostError, StoreError } from '../../errors.js';
import { JOURNAL_VERSION, type JournalRecord, type Park, type ParkDecision } from '../../journal/records.js';
import type { RunState } from '../../journal/state.js';
import { isEnded, type Lease, type PendingAnswer } from '../../store/store.js';
import type { SignInNeeded } from '../../tool-sources/tool-offer.js';
import { CallbackFailure } from '../callbacks.js';
import { runPending } from '../calls/execute-call.js';
import type { DriverDeps } from './driver-deps.js';
import { nextTurnIfSliceOver } from './fair-share.js';
import { type Generated, generate, journaledCall, judgeFinalAnswer, usageMeasures } from './model-step.js';
import { type PreparedStep, StepPreparer, sameNames } from './prepare-step.js';
import { type EndOptions, endRun, truncatedError } from './run-end.js';
import { RunFailure } from './run-failure.js';
import { RunScope, shutdown } from './run-scope.js';
import { NOT_DURABLE, type WriteOptions } from './run-writer.js';

/**
 * Why a driver stopped driving: the run parked or ended; the process stops it (`stopped`); or
 * another node took the run over (`lost`: a write was refused for its lease).
 */
export type DriveOutcome = 'parked' | 'ended' | 'stopped' | 'lost';

/** The write that leaves a run parked after its calls (the row says so). */
const PARKED: WriteOptions = Object.freeze({ durable: false, row: true });

/**
 * Drives one run: model step → calls → answers → next step, journaling each step, until the run
 * ends, parks, or the process shuts down. One driver per run per process; it holds the run's
 * state only while the run is in memory. What the run's parts share is its `RunScope` (run/):
 * the writer, the parks, the agent and its tools; a call's phases run over it (calls/).
 */
export class RunDriver {
  readonly state: RunState;
  readonly #run: RunScope;
  readonly #steps: StepPreparer;

  /** `agent` is the agent the run goes on under now (`state.activeAgent`). */
  constructor(agent: Agent, state: RunState, deps: DriverDeps) {
    this.state = state;
    this.#run = new RunScope(agent, state, deps);
    this.#steps = new StepPreparer(this.#run);
  }

  /** This node's lease on the run: every write names it (see `RunStore.claimRun`). */
  get lease(): Lease | undefined {
    return this.#run.writer.lease;
  }

  set lease(lease: Lease | undefined) {
    this.#run.writer.lease = lease;
  }

  get runId(): string {
    return this.state.runId;
  }

  get ended(): boolean {
    return isEnded(this.state.status);
  }

  /** Writes the run's first record; `durable`: once this resolves the run can't be lost. */
  async begin(record: JournalRecord & { type: 'run-started' }, { durable }: { durable: boolean }): Promise<void> {
    await this.#run.writer.write([record], { durable, row: true });
  }

  /** Drives until the run ends, parks or the process stops it. */
  async drive(): Promise<DriveOutcome> {
    const run = this.#run;
    const state = this.state;
    try {
      // Questions nobody waits for now: their call is no longer run here (its node stopped), or its work ended.
      if (run.inputs.anyOpen) await run.inputs.withdrawAll('no call or work waits for the answer any more');
      for (;;) {
        if (run.stopping()) return 'stopped';
        const ending = this.#endingNow();
        if (ending) return await this.#end(ending);
        const pending = state.calls.filter((call) => call.status !== 'answered');
        if (pending.length > 0) {
          await run.stateValues();
          await runPending(run, pending);
          if (run.stopping()) return 'stopped';
          if (state.openParks > 0) {
            await run.writer.write([], PARKED);
            return 'parked';
          }
          continue;
        }
        const limit = run.budgetReached();
        if (limit) {
          await run.park('budget', `budget reached: ${limit}`);
          return 'parked';
        }
        if (state.steps >= state.maxSteps) {
          const error = `reached maxSteps (${state.maxSteps}) without a final answer`;
          return await this.#end({ status: 'failed', detail: { error } });
        }
        if (run.agent.name !== state.activeAgent) run.switchTo(state.activeAgent);
        const turn = nextTurnIfSliceOver(); // let HTTP, workers and timers in now and then
        if (turn) {
          await turn;
          continue; // a cancel or a stop may have come meanwhile
        }
        if (state.steps === 0 && run.agent.guardrails.input.length > 0) {
          const tripped = await this.#inputTripped();
          if (tripped) return await this.#end(tripped);
        }
        const prepared = this.#steps.fixedStep() ?? (await this.#steps.prepareStep());
        const signIn = prepared.offered.signIns?.[0];
        if (signIn) return await this.#parkForSignIn(signIn);
        const generated = await generate(run, prepared);
        if (generated === undefined) continue;
        const { response } = generated;
        const final =
          response.truncated || response.toolCalls.length > 0 ? undefined : await judgeFinalAnswer(run, response.text);
        await run.writer.write([this.#stepRecord({ prepared, generated, rejected: final?.rejected })], NOT_DURABLE);
        if (response.truncated || final?.rejected !== undefined) continue; // the top of the loop ends it, or the model tries again
        if (final?.failure) return await this.#end({ status: 'failed', detail: final.failure });
        if (response.toolCalls.length === 0) {
          return await this.#end({ status: 'completed', detail: { output: response.text } });
        }
      }
    } catch (thrown) {
      return await this.#failed(thrown);
    }
  }

  /**
   * Whether the driver must go on after `drive()` returned `parked`: every park was answered, or a
   * cancel came, meanwhile (the caller decides this synchronously, so that an answer arriving as
   * the run parks is never left with nobody driving the run).
   */
  get mustGoOn(): boolean {
    return !this.ended && (this.state.openParks === 0 || this.#run.abort.aborted);
  }

  /**
   * Cancels the run: an active one stops at once; a parked one ends here. `requested`: the cancel
   * came from another node through the store (`RunStore.requestCancel`); the run's end clears it.
   */
  async cancel(reason: string, options: { requested?: boolean } = {}): Promise<void> {
    const run = this.#run;
    run.cancelReason = reason;
    if (options.requested) run.cancelRequested = true;
    run.abort.abort(new Error(reason));
  }

  /** Ends a run that is not being driven (it is parked) as cancelled. */
  async cancelParked(reason: string, options: { requested?: boolean } = {}): Promise<void> {
    await this.cancel(reason, options);
    await this.#end({ status: 'cancelled', detail: { error: reason } });
  }

  /** Journals a person's release of labels from the run, durably. */
  async releaseLabels(labels: readonly string[], by: string, reason: string): Promise<void> {
    const writer = this.#run.writer;
    await writer.write([writer.record('labels-released', { labels, by, reason })], { durable: true, row: true });
  }

  /** Stops driving without writing anything: the process is shutting down, and recovery will go on. */
  stop(): void {
    this.#run.abort.abort(shutdown);
  }

  /**
   * Writes a person's answer to one of this run's parks, atomically and durably. The caller has
   * checked that the park is open and the decision allowed for its kind.
   */
  answer(park: Park, decision: ParkDecision, by: string): Promise<void> {
    return this.#run.parks.answer(park, decision, by);
  }

  /**
   * Asks a person for the long-running work call `callId` started (its run waits for it, parked
   * `external`): journals an `input` park of that call. Throws `ParkNotFoundError` when the call
   * waits for no work.
   */
  askForWork(callId: string, question: InputQuestion): Promise<Park> {
    return this.#run.parks.askForWork(callId, question);
  }

  /** Withdraws a question (its asker stopped waiting), if it is still open. */
  async withdrawQuestion(parkId: string, reason: string): Promise<void> {
    await this.#run.inputs.withdraw(parkId, reason);
  }

  /**
   * Journals a person's answer that another node recorded while this one held the run (the park
   * is answered in the store already: see `RunStore.requestAnswer`), durably.
   */
  recordAnswer(pending: PendingAnswer): Promise<void> {
    return this.#run.parks.recordAnswer(pending);
  }

  /** How the run must end before anything else is done, if it must: it was cancelled, or its model was cut off. */
  #endingNow(): EndOptions | undefined {
    if (this.#run.abort.aborted) return { status: 'cancelled', detail: { error: this.#run.cancelReason } };
    if (this.state.truncated) return { status: 'failed', detail: { error: truncatedError(this.state.steps) } };
    return undefined;
  }

  /** The run's end when an input guardrail tripped on its input; undefined when none did. */
  async #inputTripped(): Promise<EndOptions | undefined> {
    const run = this.#run;
    const tripped = await firstTripped(run.agent.guardrails.input, 'input', this.state.input, run.callbackRun());
    return tripped ? { status: 'failed', detail: { error: trippedError(tripped), guardrail: tripped } } : undefined;
  }

  /** A person must sign in to a toolset's server first: the run waits, showing where. */
  async #parkForSignIn(signIn: SignInNeeded): Promise<'parked'> {
    const reason = `toolset ${signIn.toolset}: its MCP server needs a person to sign in at ${signIn.url}; the run goes on once they have`;
    await this.#run.park('authorize', reason, {
      details: {
        toolset: signIn.toolset,
        url: signIn.url,
        ...(signIn.state === undefined ? {} : { state: signIn.state }),
        ...(signIn.principal === undefined ? {} : { principal: signIn.principal }),
      },
    });
    return 'parked';
  }

  /** The record of a model step (`rejected`: why its final answer was sent back, if it was). */
  #stepRecord(step: {
    readonly prepared: PreparedStep;
    readonly generated: Generated;
    readonly rejected: string | undefined;
  }): JournalRecord {
    const { prepared, generated, rejected } = step;
    const { response, callback } = generated;
    const { agent, state } = this.#run;
    const number = state.steps + 1;
    const offered = prepared.offered;
    const toolsChanged = number === 1 || !sameNames(offered.names, state.offeredTools);
    // Written out by hand, not with `writer.record`: this is made at every step.
    return {
      v: JOURNAL_VERSION,
      at: this.#run.deps.now(),
      type: 'model-step',
      step: number,
      model: agent.model.id,
      text: response.text,
      toolCalls: response.toolCalls.map((requested, index) => journaledCall(requested, `c${number}.${index}`)),
      usage: response.usage,
      measures: usageMeasures(response),
      // Plain fields, absent ones undefined (JSON leaves them out): this is made at every step.
      truncated: response.truncated ? true : undefined,
      tools: toolsChanged ? offered.names : undefined,
      labels: prepared.labels.length ? prepared.labels : undefined,
      unavailable: offered.unavailable.length ? offered.unavailable : undefined,
      agent: agent.name === state.agent ? undefined : agent.name,
      callback,
      unpinned: prepared.unpinned,
      outputRejected: rejected,
    };
  }

  /** How driving ends when something was thrown: stopped, lost, or the run ends (failed or cancelled). */
  async #failed(thrown: unknown): Promise<DriveOutcome> {
    const run = this.#run;
    if (run.stopping()) return 'stopped';
    // Another node took the run over: stop at once, writing nothing (it drives the run now).
    if (LeaseLostError.isInstance(thrown)) return 'lost';
    // The store failed: nothing more can be journaled; the runtime stops and recovery goes on.
    if (StoreError.isInstance(thrown)) throw thrown;
    if (thrown instanceof RunFailure || thrown instanceof CallbackFailure) {
      return await this.#end({ status: 'failed', detail: { error: thrown.message } });
    }
    if (run.abort.aborted) return await this.#end({ status: 'cancelled', detail: { error: run.cancelReason } });
    return await this.#end({ status: 'failed', detail: { error: `internal error: ${describeReason(thrown)}` } });
  }

  #end({ status, detail }: EndOptions): Promise<'ended'> {
    return endRun(this.#run, { status, detail, cancelTaken: this.#run.cancelRequested });
  }
}
