import {
  type Answer,
  type Arguments,
  addMeasures,
  type CompleteExternal,
  describeReason,
  error,
  type InputQuestion,
  type Label,
  type Measures,
  mergeLabels,
  ok,
  type Progress,
  type RequestInputFor,
  repeatable,
  type Tool,
} from '@wardrik/core';
import type { Agent } from '../agent.js';
import type { AgentDirectory } from '../agents/agent-directory.js';
import { agentOfTool, CHILD_RUNNER, type ChildRunner } from '../agents/agent-tool.js';
import { type ChildRunRequest, childOfHandle, childRunId } from '../agents/child-runs.js';
import { checkFinalAnswer, firstTripped, type TrippedGuardrail, trippedError } from '../agents/final-answer.js';
import { isTransferTool, MAX_TRANSFERS, transferRequest } from '../agents/transfer.js';
import { WorkflowStopped } from '../agents/workflow-agents.js';
import { LeaseLostError, ModelError, ParkNotFoundError, StoreError } from '../errors.js';
import {
  type Budget,
  type CallHolder,
  type EndStatus,
  JOURNAL_VERSION,
  type JournalRecord,
  type Park,
  type ParkDecision,
  type ParkKind,
  type StateWrite,
  type StoredRecord,
  type UnpinnedTool,
} from '../journal/records.js';
import { applyRecord, type CallState, type RunState, tokensUsed } from '../journal/state.js';
import type { ModelRequest, ModelResponse, ModelToolCall, RequestedToolCall } from '../model/model.js';
import { type ScopedStateWrite, stateScopesOf } from '../store/session-store.js';
import {
  isEnded,
  type Lease,
  type ParkRow,
  type PendingAnswer,
  type RunRow,
  type RunWrite,
  type Store,
} from '../store/store.js';
import type { WorkerHub } from '../workers/worker-hub.js';
import { type Attempt, attemptCall, type CallServices, type CallServicesRequest, onlyTool } from './attempt-call.js';
import { backoffDelay, type RetryPolicy, sleep } from './backoff.js';
import { sampleForCall } from './call-sampling.js';
import {
  type CallbackCall,
  CallbackFailure,
  type CallbackRun,
  checkedAnswer,
  checkedArguments,
  checkedObject,
  checkedResponse,
  invokeCallback,
  toolCallback,
} from './callbacks.js';
import { type EventHub, recordEvent } from './events.js';
import { nextTurnIfSliceOver } from './fair-share.js';
import type { AttemptOutcome, CallOutcome, Hooks } from './hooks.js';
import { timeOrderedId } from './ids.js';
import { InputParks } from './input-parks.js';
import { renderInstructions } from './instructions.js';
import { parkHash } from './park-hash.js';
import { callFacts, type Decision, decide, type Policy } from './policy.js';
import { argumentsFromTheUser } from './provenance.js';
import { RunAbort } from './run-abort.js';
import { isStandIn, standInName } from './stand-in.js';
import { StateValues, storedWrites } from './state-values.js';
import { journaledArguments, storableAnswer } from './storable.js';
import { type OfferedTools, type ResolvedTools, type ResolveInput, ToolResolver } from './tool-resolver.js';

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

/**
 * Why a driver stopped driving: the run parked or ended; the process stops it (`stopped`); or
 * another node took the run over (`lost`: a write was refused for its lease).
 */
export type DriveOutcome = 'parked' | 'ended' | 'stopped' | 'lost';

/** Thrown inside the driver to end the run as failed with a message for its caller. */
class RunFailure extends Error {}

const shutdown = Symbol('shutdown');

/**
 * Drives one run: model step → calls → answers → next step, journaling each step, until the run
 * ends, parks, or the process shuts down. One driver per run per process; it holds the run's
 * state only while the run is in memory.
 */
export class RunDriver {
  readonly state: RunState;
  /** The agent the run goes on under now (its own, or the one it was transferred to). */
  #agent: Agent;
  readonly #deps: DriverDeps;
  /** This node's lease on the run: every write names it (see `RunStore.claimRun`). */
  lease: Lease | undefined;
  /** The cancel being acted on was requested by another node (its end clears the request). */
  #cancelRequested = false;
  /** Stops the run: a cancel, or the process shutting down (`shutdown`). */
  readonly #abort = new RunAbort();
  #cancelReason: string | undefined;
  #tools: ToolResolver;
  /** What each step is given, while the run is under an agent whose tools and instructions never change. */
  #fixed: { readonly agent: Agent; readonly prepared: PreparedStep } | undefined;
  /** The run's state values, loaded from the store once per driver. */
  #values: Promise<StateValues> | undefined;
  /** The step whose calls transferred the run (one transfer a step). */
  #transferStep = -1;
  /** The emission of the latest write, while it is on its way (see `#emitInOrder`). */
  #emitted: Promise<void> | undefined;
  /** The questions its calls ask a person while they run (`input` parks). */
  readonly #inputs: InputParks;

  /** `agent` is the agent the run goes on under now (`state.activeAgent`). */
  constructor(agent: Agent, state: RunState, deps: DriverDeps) {
    this.#agent = agent;
    this.state = state;
    this.#deps = deps;
    this.#tools = this.#resolverFor(agent);
    this.#inputs = new InputParks({
      state,
      now: deps.now,
      stopping: () => this.#stopping(),
      opened: (park) => {
        const hooks = this.#deps.hooks;
        if (!hooks.has('park-opened')) return;
        hooks.emit('park-opened', {
          runId: this.runId,
          agent: this.#agent.name,
          trace: this.state.trace,
          parkId: park.id,
          kind: park.kind,
          reason: park.reason,
          ...(park.call ? { tool: park.call.name } : {}),
        });
      },
      write: async (records, parks) => {
        await this.#write(records, {
          durable: true,
          parks: parks.open,
          closeParks: parks.close ? [...parks.close] : undefined,
        });
      },
    });
  }

  #resolverFor(agent: Agent): ToolResolver {
    return new ToolResolver(
      agent,
      this.#deps.workers,
      this.#deps.toolsetTimeoutMs,
      this.#deps.agents.addedTools(agent.name),
    );
  }

  get runId(): string {
    return this.state.runId;
  }

  get ended(): boolean {
    return isEnded(this.state.status);
  }

  /** Writes the run's first record; `durable`: once this resolves the run can't be lost. */
  async begin(record: JournalRecord & { type: 'run-started' }, { durable }: { durable: boolean }): Promise<void> {
    await this.#write([record], { durable, row: true });
  }

  /** Drives until the run ends, parks or the process stops it. */
  async drive(): Promise<DriveOutcome> {
    try {
      // Questions nobody waits for now: their call is no longer run here (its node stopped), or its work ended.
      if (this.#inputs.anyOpen) await this.#inputs.withdrawAll('no call or work waits for the answer any more');
      for (;;) {
        if (this.#stopping()) return 'stopped';
        if (this.#abort.aborted) return await this.#end('cancelled', { error: this.#cancelReason });
        if (this.state.truncated) return await this.#end('failed', { error: truncatedError(this.state.steps) });
        const pending = this.state.calls.filter((call) => call.status !== 'answered');
        if (pending.length > 0) {
          await this.#stateValues();
          await this.#runPending(pending);
          if (this.#stopping()) return 'stopped';
          if (this.state.openParks > 0) {
            await this.#write([], { durable: false, row: true });
            return 'parked';
          }
          continue;
        }
        const limit = this.#budgetReached();
        if (limit) {
          await this.#park('budget', `budget reached: ${limit}`);
          return 'parked';
        }
        if (this.state.steps >= this.state.maxSteps) {
          return await this.#end('failed', {
            error: `reached maxSteps (${this.state.maxSteps}) without a final answer`,
          });
        }
        if (this.#agent.name !== this.state.activeAgent) this.#switchTo(this.state.activeAgent);
        const turn = nextTurnIfSliceOver(); // let HTTP, workers and timers in now and then
        if (turn) {
          await turn;
          continue; // a cancel or a stop may have come meanwhile
        }
        if (this.state.steps === 0 && this.#agent.guardrails.input.length > 0) {
          const tripped = await firstTripped(
            this.#agent.guardrails.input,
            'input',
            this.state.input,
            this.#callbackRun(),
          );
          if (tripped) return await this.#end('failed', { error: trippedError(tripped), guardrail: tripped });
        }
        const prepared = this.#fixedStep() ?? (await this.#prepareStep());
        const signIn = prepared.offered.signIns?.[0];
        if (signIn) {
          // A person must sign in to a toolset's server first: the run waits, showing where.
          const reason = `toolset ${signIn.toolset}: its MCP server needs a person to sign in at ${signIn.url}; the run goes on once they have`;
          await this.#park('authorize', reason, {
            details: {
              toolset: signIn.toolset,
              url: signIn.url,
              ...(signIn.state === undefined ? {} : { state: signIn.state }),
              ...(signIn.principal === undefined ? {} : { principal: signIn.principal }),
            },
          });
          return 'parked';
        }
        const generated = await this.#generate(prepared);
        if (generated === undefined) continue;
        const { response, callback } = generated;
        const step = this.state.steps + 1;
        const offered = prepared.offered;
        const toolsChanged = step === 1 || !sameNames(offered.names, this.state.offeredTools);
        const final =
          response.truncated || response.toolCalls.length > 0 ? undefined : await this.#judgeFinalAnswer(response.text);
        await this.#write(
          [
            {
              v: JOURNAL_VERSION,
              at: this.#deps.now(),
              type: 'model-step',
              step,
              model: this.#agent.model.id,
              text: response.text,
              toolCalls: response.toolCalls.map((requested, index) => journaledCall(requested, `c${step}.${index}`)),
              usage: response.usage,
              measures: usageMeasures(response),
              // Plain fields, absent ones undefined (JSON leaves them out): this is made at every step.
              truncated: response.truncated ? true : undefined,
              tools: toolsChanged ? offered.names : undefined,
              labels: prepared.labels.length ? prepared.labels : undefined,
              unavailable: offered.unavailable.length ? offered.unavailable : undefined,
              agent: this.#agent.name === this.state.agent ? undefined : this.#agent.name,
              callback,
              unpinned: prepared.unpinned,
              outputRejected: final?.rejected,
            },
          ],
          NOT_DURABLE,
        );
        if (response.truncated || final?.rejected !== undefined) continue; // the top of the loop ends it, or the model tries again
        if (final?.failure) return await this.#end('failed', final.failure);
        if (response.toolCalls.length === 0) return await this.#end('completed', { output: response.text });
      }
    } catch (thrown) {
      if (this.#stopping()) return 'stopped';
      // Another node took the run over: stop at once, writing nothing (it drives the run now).
      if (LeaseLostError.isInstance(thrown)) return 'lost';
      // The store failed: nothing more can be journaled; the runtime stops and recovery goes on.
      if (StoreError.isInstance(thrown)) throw thrown;
      if (thrown instanceof RunFailure || thrown instanceof CallbackFailure) {
        return await this.#end('failed', { error: thrown.message });
      }
      if (this.#abort.aborted) return await this.#end('cancelled', { error: this.#cancelReason });
      return await this.#end('failed', { error: `internal error: ${describeReason(thrown)}` });
    }
  }

  /**
   * Whether the driver must go on after `drive()` returned `parked`: every park was answered, or a
   * cancel came, meanwhile (the caller decides this synchronously, so that an answer arriving as
   * the run parks is never left with nobody driving the run).
   */
  get mustGoOn(): boolean {
    return !this.ended && (this.state.openParks === 0 || this.#abort.aborted);
  }

  /**
   * Cancels the run: an active one stops at once; a parked one ends here. `requested`: the cancel
   * came from another node through the store (`RunStore.requestCancel`); the run's end clears it.
   */
  async cancel(reason: string, options: { requested?: boolean } = {}): Promise<void> {
    this.#cancelReason = reason;
    if (options.requested) this.#cancelRequested = true;
    this.#abort.abort(new Error(reason));
  }

  /** Ends a run that is not being driven (it is parked) as cancelled. */
  async cancelParked(reason: string, options: { requested?: boolean } = {}): Promise<void> {
    await this.cancel(reason, options);
    await this.#end('cancelled', { error: reason });
  }

  /** The node running this run's calls now, and its lease on the run (journaled with each call that may end in doubt). */
  #holder(): CallHolder | undefined {
    const lease = this.lease;
    if (!lease) return undefined;
    return { node: lease.node, incarnation: this.#deps.incarnation, epoch: lease.epoch };
  }

  /** Journals a person's release of labels from the run, durably. */
  async releaseLabels(labels: readonly string[], by: string, reason: string): Promise<void> {
    await this.#write([{ v: JOURNAL_VERSION, at: this.#deps.now(), type: 'labels-released', labels, by, reason }], {
      durable: true,
      row: true,
    });
  }

  /** Stops driving without writing anything: the process is shutting down, and recovery will go on. */
  stop(): void {
    this.#abort.abort(shutdown);
  }

  /**
   * Writes a person's answer to one of this run's parks, atomically and durably. The caller has
   * checked that the park is open and the decision allowed for its kind.
   */
  async answer(park: ParkRow, decision: ParkDecision, by: string): Promise<void> {
    if (park.kind === 'input' && !this.#inputs.isWaiting(park.id) && !this.#asksForWork(park)) {
      await this.#inputs.refuseStale(park.id);
    }
    const handedBack = await this.#childWritesFor(park, decision);
    const at = this.#deps.now();
    const stored = this.#stamp(this.#answerRecords(park, decision, by, at, handedBack));
    const closeParks = this.ended ? this.#openParkIds().filter((id) => id !== park.id) : [];
    await this.#emitInOrder(
      this.#deps.store.answerPark({
        parkId: park.id,
        decision,
        by,
        at,
        write: this.#runWrite(stored, { row: true, closeParks }),
      }),
      stored,
    );
    if (park.kind === 'input') this.#inputs.answered(park, decision);
    await this.#afterWorkEnded(park);
  }

  /**
   * Asks a person for the long-running work call `callId` started (its run waits for it, parked
   * `external`): journals an `input` park of that call. Throws `ParkNotFoundError` when the call
   * waits for no work.
   */
  async askForWork(callId: string, question: InputQuestion): Promise<Park> {
    const call = this.state.callsById.get(callId);
    if (call?.status !== 'parked' || this.ended) {
      throw new ParkNotFoundError(`run ${this.runId}: call ${callId} waits for no work now`);
    }
    return this.#inputs.askForWork(call, question, this.#holder());
  }

  /** Withdraws a question (its asker stopped waiting), if it is still open. */
  async withdrawQuestion(parkId: string, reason: string): Promise<void> {
    await this.#inputs.withdraw(parkId, reason);
  }

  /** Whether `park` (of kind `input`) asks for the work its call started: the call is still parked. */
  #asksForWork(park: Park): boolean {
    return park.call !== undefined && this.state.callsById.get(park.call.callId)?.status === 'parked';
  }

  /** The work an `external` park waited for has its result: the questions asked for it are withdrawn. */
  async #afterWorkEnded(park: Park): Promise<void> {
    if (park.kind !== 'external' || !park.call || !this.#inputs.anyOpen || this.ended) return;
    await this.#inputs.withdrawAll('the work it was asked for ended', park.call.callId);
  }

  /**
   * Journals a person's answer that another node recorded while this one held the run (the park
   * is answered in the store already: see `RunStore.requestAnswer`), durably.
   */
  async recordAnswer(pending: PendingAnswer): Promise<void> {
    const park = this.state.parks.get(pending.parkId);
    if (park?.status !== 'open') {
      // Journaled already (or its run moved on): only clear the request.
      await this.#write([], { durable: true, recordedAnswers: [pending.parkId] });
      return;
    }
    const handedBack = await this.#childWritesFor(park, pending.decision);
    const stored = this.#stamp(this.#answerRecords(park, pending.decision, pending.by, pending.at, handedBack));
    const closeParks = this.ended ? this.#openParkIds() : [];
    await this.#emitInOrder(
      this.#deps.store.write(this.#runWrite(stored, { row: true, closeParks, recordedAnswers: [park.id] }), {
        durable: true,
      }),
      stored,
    );
    if (park.kind === 'input') this.#inputs.answered(park, pending.decision);
    await this.#afterWorkEnded(park);
  }

  /**
   * The run-only state writes handed back by the child run whose end answers `park` (a wait on a
   * child that parked), if it is one; else none.
   */
  async #childWritesFor(park: Park, decision: ParkDecision): Promise<readonly StateWrite[] | undefined> {
    if (park.kind !== 'external' || !park.call || (decision.type !== 'answer' && decision.type !== 'fail')) return;
    return childOfHandle(park.handle) === undefined ? undefined : this.#childWrites(park.call.callId);
  }

  /** The run-only state writes the child run of call `callId` made, once it ended: they go back with the call's answer. */
  async #childWrites(callId: string): Promise<readonly StateWrite[] | undefined> {
    const child = this.state.children.get(callId);
    return child === undefined ? undefined : this.#deps.childStateWrites(child);
  }

  /**
   * The records that journal a person's answer to `park`: its answer, and what it decides for the
   * call or run. `handedBack`: the state writes of the child run whose end this is (see `#childWritesFor`).
   */
  #answerRecords(
    park: Park,
    decision: ParkDecision,
    by: string,
    at: number,
    handedBack?: readonly StateWrite[],
  ): JournalRecord[] {
    const hooks = this.#deps.hooks;
    if (hooks.has('park-answered')) {
      hooks.emit('park-answered', {
        runId: this.runId,
        agent: this.#agent.name,
        trace: this.state.trace,
        parkId: park.id,
        kind: park.kind,
        decision: decision.type,
        by,
        waitedMs: Math.max(0, at - park.createdAt),
      });
    }
    const records: JournalRecord[] = [{ v: JOURNAL_VERSION, at, type: 'park-answered', parkId: park.id, decision, by }];
    if (park.kind === 'input') return records; // the call that asked goes on with the answer
    const call = park.call ? this.state.callsById.get(park.call.callId) : undefined;
    if (call && decision.type === 'answer') {
      const labels = mergeLabels(park.resultLabels, decision.labels);
      records.push(
        this.#answered(
          call,
          ok(decision.value, { labels, ...(decision.measures ? { measures: decision.measures } : {}) }),
          undefined,
          handedBack?.length ? [...handedBack] : undefined,
        ),
      );
    } else if (call && park.kind === 'external' && decision.type === 'fail') {
      const reason = `the work it started did not finish: ${decision.reason ?? 'it failed'}`;
      const carried = {
        labels: mergeLabels(park.resultLabels, decision.labels),
        ...(decision.measures ? { measures: decision.measures } : {}),
      };
      records.push(
        this.#answered(
          call,
          error(reason, { code: 'external_failed', ...carried }),
          undefined,
          handedBack?.length ? [...handedBack] : undefined,
        ),
      );
    } else if (call && (decision.type === 'fail' || decision.type === 'deny')) {
      const reason =
        park.kind === 'approval'
          ? `A person declined this call${decision.reason ? `: ${decision.reason}` : ''}`
          : (decision.reason ?? 'a person failed this call');
      records.push(this.#answered(call, error(reason, { code: 'declined' })));
    } else if (decision.type === 'stop') {
      const stopped =
        park.kind === 'authorize'
          ? 'a person stopped the run instead of signing in'
          : 'a person stopped the run at its budget';
      records.push(this.#endRecord('failed', { error: decision.reason ?? stopped }));
    }
    return records;
  }

  #stopping(): boolean {
    return this.#abort.reason === shutdown;
  }

  async #runPending(pending: CallState[]): Promise<void> {
    for (const call of pending) {
      if (call.status === 'started' && !call.repeatable) {
        const holder = call.holder && call.holder.incarnation !== this.#deps.incarnation ? call.holder : undefined;
        await this.#park('in_doubt', inDoubtReason(holder), {
          call,
          external: {
            ...(call.labels?.length ? { resultLabels: call.labels } : {}),
            ...(holder ? { holder } : {}),
          },
        });
      }
    }
    const runnable = pending.filter(
      (call) =>
        call.status === 'requested' || call.status === 'to-run' || (call.status === 'started' && call.repeatable),
    );
    if (runnable.length === 1) await this.#execute(runnable[0] as CallState);
    else if (runnable.length > 1) await Promise.all(runnable.map((call) => this.#execute(call)));
  }

  async #execute(call: CallState): Promise<void> {
    if (call.invalidArguments !== undefined && call.status === 'requested') {
      const reason = `Invalid arguments for tool "${call.name}": ${call.invalidArguments}`;
      await this.#write([this.#answered(call, error(reason, { code: 'invalid_arguments' }))], NOT_DURABLE);
      return;
    }
    // A call whose intent is on disk passed the policy before the process stopped: recovery
    // repeats it as it was (its tool may not even be offered yet, e.g. a worker reconnecting).
    const resumed = call.status === 'started';
    const values = await this.#stateValues();
    if (!this.#tools.current) await this.#resolveTools(values); // after a restart: this step's tools again
    let tool = this.#tools.find(call.name);
    if (tool && !resumed && isStandIn(tool)) {
      const wanted = standInName(tool);
      // No worker offers it right now: wait for one before judging the call by its annotations.
      tool = await this.#deps.workers?.awaitTool(this.#agent.name, this.#agent.workers, call.name, this.#abort.signal);
      if (this.#stopping()) return;
      if (this.#abort.aborted) {
        await this.#write([this.#answered(call, error('the run was cancelled', { code: 'cancelled' }))], NOT_DURABLE);
        return;
      }
      if (!tool) {
        const waited = this.#deps.workers?.unavailableWaitMs ?? 0;
        const unavailable = error(`Unavailable: no worker offers ${wanted} (waited ${waited} ms)`, {
          code: 'unavailable',
        });
        await this.#write([this.#answered(call, unavailable)], NOT_DURABLE);
        return;
      }
    }
    const fresh = !resumed && !call.approval;
    if (fresh && call.changedBy === undefined && this.#agent.callbacks.beforeTool) {
      if (await this.#beforeTool(call, tool)) return;
    }
    if (fresh && tool && isTransferTool(tool)) {
      const refusal = this.#transferRefusal();
      if (refusal) {
        await this.#write([this.#answered(call, error(refusal, { code: 'transfer_refused' }))], NOT_DURABLE);
        return;
      }
    }
    const isRepeatable = resumed ? call.repeatable : tool ? repeatable(tool) : true;
    // What any answer of this call carries, also one a person gives in its place: the tool's `labels` annotation.
    const promised = resumed ? call.labels : tool?.annotations.labels?.length ? tool.annotations.labels : undefined;
    let rule = call.approval ? 'approved' : resumed ? 'recovered' : undefined;
    if (tool && !call.approval && !resumed) {
      const decision = this.#decide(tool, call);
      if (decision.verdict === 'gate') {
        await this.#park('approval', decision.reason, { call, rule: decision.rule });
        return;
      }
      if (decision.verdict === 'deny') {
        const refused = error(`Refused by policy (${decision.rule}): ${decision.reason}`, { code: 'denied' });
        await this.#write([this.#answered(call, refused, decision.rule)], NOT_DURABLE);
        return;
      }
      rule = decision.rule;
    }
    const idempotencyKey = call.idempotencyKey || `${this.runId}:${call.callId}`;
    const calledAgent = tool ? agentOfTool(tool) : undefined;
    const privates = calledAgent
      ? new Map<unknown, unknown>([[CHILD_RUNNER, this.#childRunner(call, idempotencyKey)]])
      : undefined;
    const { attempts, baseDelayMs, maxDelayMs } = this.#deps.toolRetry;
    let spent = {};
    for (let tries = 1; ; tries++) {
      const [intent] = await this.#write(
        [
          {
            v: JOURNAL_VERSION,
            at: this.#deps.now(),
            type: 'call-started',
            callId: call.callId,
            name: call.name,
            arguments: call.arguments,
            idempotencyKey,
            repeatable: isRepeatable,
            attempt: call.attempts + 1,
            rule, // undefined when none: JSON leaves it out
            labels: promised,
            // Who runs a call that may end in doubt: if this node loses the run, a person is told.
            holder: isRepeatable ? undefined : this.#holder(),
          },
        ],
        isRepeatable ? NOT_DURABLE : DURABLE,
      );
      const hooks = this.#deps.hooks;
      const attempt = call.attempts;
      const began = hooks.has('call-attempt-ended') ? performance.now() : 0;
      if (hooks.has('call-attempt-started')) {
        hooks.emit('call-attempt-started', {
          runId: this.runId,
          agent: this.#agent.name,
          trace: this.state.trace,
          step: this.state.steps,
          callId: call.callId,
          modelCallId: call.modelCallId,
          tool: call.name,
          definition: tool,
          attempt,
          repeatable: isRepeatable,
          idempotencyKey,
          arguments: call.arguments,
        });
      }
      const traceContext = hooks.tracing
        ? hooks.attemptTrace({ runId: this.runId, callId: call.callId, attempt })
        : undefined;
      const services = this.#deps.callServices;
      const scope: CallServicesRequest = {
        runId: this.runId,
        app: this.state.app,
        principal: this.state.principal,
        sessionId: this.state.sessionId,
        idempotencyKey,
      };
      const outcome = await attemptCall({
        tools: tool ? onlyTool(call.name, tool) : this.#agent.tools,
        callId: call.callId,
        name: call.name,
        arguments: call.arguments,
        runId: this.runId,
        agent: this.#agent.name,
        principal: this.state.principal,
        idempotencyKey,
        // A later attempt (on this node or the one that takes the run over) has a higher one.
        fencingToken: intent?.seq,
        // Plain fields, absent ones undefined: conditional spreads cost ~1 µs a property on every call.
        privates,
        traceContext,
        labels: this.state.labels,
        approval: call.approval,
        requestInput: (question, signal) => this.#inputs.ask(call, question, signal),
        sample: (request, signal) =>
          sampleForCall({
            model: this.#agent.model,
            runId: this.runId,
            request,
            step: this.state.steps,
            signal,
            budgetReached: () => this.#budgetReached(),
          }),
        run: this.#abort,
        onProgress: (progress) => this.#emitProgress(call, progress),
        sessionId: this.state.sessionId,
        state: values,
        stateWriteRefusal: (key) => this.#stateWriteRefusal(key),
        completeExternal: this.#deps.completeExternal,
        requestInputFor: this.#deps.requestInputFor,
        memory: services && (() => services.memoryFor(scope)),
        artifacts: services && (() => services.artifactsFor(scope)),
      });
      if (hooks.has('call-attempt-ended')) {
        hooks.emit('call-attempt-ended', {
          runId: this.runId,
          agent: this.#agent.name,
          trace: this.state.trace,
          step: this.state.steps,
          callId: call.callId,
          tool: call.name,
          attempt,
          durationMs: performance.now() - began,
          ...attemptOutcome(outcome),
        });
      }
      // Questions the call left open: it has its outcome now, nobody waits for their answers.
      if (this.#inputs.anyOpen && !this.#stopping()) await this.#inputs.withdrawAll('the call ended', call.callId);
      if (outcome.kind === 'cancelled') {
        if (this.#stopping()) return;
        await this.#write([this.#answered(call, error('the run was cancelled', { code: 'cancelled' }))], NOT_DURABLE);
        return;
      }
      // A worker that went away or stopped answering: the call may or may not have run.
      const lost = outcome.kind === 'answered' && outcome.answer.type === 'error' && outcome.answer.code === 'lost';
      const retryable =
        isRepeatable &&
        (outcome.kind === 'timeout' || lost || (outcome.answer.type === 'error' && outcome.answer.code === 'thrown'));
      const partial = outcome.kind === 'timeout' ? outcome.answerSoFar : outcome.answer;
      spent = addMeasures(spent, partial.measures);
      if ((outcome.kind === 'timeout' || lost) && !isRepeatable) {
        const why =
          outcome.kind === 'timeout'
            ? `the call timed out after ${outcome.ms} ms and may have run`
            : `the worker running the call was lost (${describeAnswer(partial).replace(/^Lost: /, '')}) and it may have run`;
        const carried = mergeLabels(promised, partial.labels);
        await this.#park('in_doubt', `${why}; say whether it ran`, {
          call,
          measures: partial.measures,
          external: carried.length ? { resultLabels: carried } : {},
        });
        return;
      }
      if (retryable && tries < attempts) {
        await sleep(backoffDelay({ attempts, baseDelayMs, maxDelayMs }, tries), this.#abort.signal).catch(() => {});
        if (this.#abort.aborted) {
          if (this.#stopping()) return;
          await this.#write([this.#answered(call, error('the run was cancelled', { code: 'cancelled' }))], NOT_DURABLE);
          return;
        }
        continue;
      }
      let answer: Answer = outcome.kind === 'answered' ? outcome.answer : partial;
      if (retryable) {
        const why = outcome.kind === 'timeout' ? `timed out after ${outcome.ms} ms` : describeAnswer(partial);
        answer = error(`failed after ${tries} attempt${tries > 1 ? 's' : ''}: ${why}`, {
          code: outcome.kind === 'timeout' ? 'timeout' : 'retries_exhausted',
          labels: partial.labels,
        });
      }
      answer = storableAnswer(answer, spent);
      if (call.editedBy) answer = toldOfEdit(answer, call);
      if (answer.type !== 'park' && this.#agent.callbacks.afterTool) answer = await this.#afterTool(call, tool, answer);
      if (answer.type === 'park') {
        const external = answer.external;
        const parked = await this.#park(external ? 'external' : 'tool', answer.reason, {
          call,
          measures: answer.measures,
          details: answer.details,
          external: {
            ...(external
              ? {
                  handle: external.handle,
                  ...(external.deadlineMs === undefined ? {} : { deadline: this.#deps.now() + external.deadlineMs }),
                }
              : {}),
            // An answer a person gives in the tool's place carries what the tool's own would have.
            ...(answer.labels.length ? { resultLabels: answer.labels } : {}),
          },
        });
        if (external) this.#deps.onExternalPark?.(parked);
        return;
      }
      // The writes of a call that answered on its own (not one that threw, was lost or gave up) go with its answer.
      const changes =
        outcome.kind === 'answered' && !retryable && !lost && !(answer.type === 'error' && answer.code === 'thrown')
          ? outcome.stateChanges
          : [];
      let writes: StateWrite[] | undefined;
      if (changes.length) {
        const labels = mergeLabels(this.state.labels, answer.labels);
        writes = changes.map((change) => ({ ...change, labels }));
      }
      const handedBack = calledAgent ? await this.#childWrites(call.callId) : undefined;
      if (handedBack?.length) writes = [...(writes ?? []), ...handedBack];
      const answered = this.#answered(call, answer, undefined, writes);
      const transfer =
        tool && isTransferTool(tool) && answer.type === 'ok' ? transferRequest(call.arguments) : undefined;
      const durableAnswer = !isRepeatable && this.#deps.durableAnswers;
      await this.#write(
        transfer
          ? [
              answered,
              {
                v: JOURNAL_VERSION,
                at: this.#deps.now(),
                type: 'agent-transferred' as const,
                callId: call.callId,
                from: this.#agent.name,
                ...transfer,
              },
            ]
          : [answered],
        writes
          ? { durable: durableAnswer, state: storedWrites(writes, this.state) }
          : durableAnswer
            ? DURABLE
            : NOT_DURABLE,
      );
      if (writes) values.apply(writes);
      return;
    }
  }

  /** The run goes on under `name` from its next model step (it was transferred there). */
  #switchTo(name: string): void {
    const target = this.#deps.agents.get(name);
    if (!target) throw new RunFailure(`the run was transferred to agent ${name}, which this Wardrik does not run`);
    this.#agent = target;
    this.#tools = this.#resolverFor(target);
  }

  /** Why a transfer call may not transfer the run, or undefined when it may (and then it is the step's one transfer). */
  #transferRefusal(): string | undefined {
    if (this.state.transfers >= MAX_TRANSFERS) {
      return `this run was handed between agents ${this.state.transfers} times already, the most allowed (${MAX_TRANSFERS}): answer without transferring`;
    }
    if (this.#transferStep === this.state.steps) {
      return `this step transferred the run already (one transfer a step): it goes to ${this.state.activeAgent}`;
    }
    this.#transferStep = this.state.steps;
    return undefined;
  }

  /**
   * The agent's `beforeTool` callback on a call not yet judged: new arguments are journaled
   * (`call-changed`) and judged as the call's own; an answer (or a failure of the callback)
   * answers the call without running it. Resolves to whether the call is answered.
   */
  async #beforeTool(call: CallState, tool: Tool<Arguments> | undefined): Promise<boolean> {
    const agent = this.#agent.name;
    const beforeTool = this.#agent.callbacks.beforeTool;
    if (!beforeTool) return false;
    type Changed = { readonly answer: Answer } | { readonly arguments: Record<string, unknown> };
    const { result, failure } = await toolCallback('beforeTool', agent, async (): Promise<Changed | undefined> => {
      const changed = await invokeCallback('beforeTool', agent, beforeTool, {
        ...this.#callbackRun(),
        call: callbackCall(call, tool),
      });
      if (changed === undefined) return undefined;
      checkedObject(changed, 'beforeTool', agent, '{ arguments } or { answer }');
      if ('answer' in changed) return { answer: checkedAnswer(changed.answer, 'beforeTool', agent) };
      return { arguments: checkedArguments((changed as { arguments: unknown }).arguments, agent) };
    });
    if (failure) {
      await this.#write([this.#answered(call, failure)], NOT_DURABLE);
      return true;
    }
    if (result && 'answer' in result) {
      // An answer given in the tool's place carries at least the labels the tool's own would (its `labels` annotation).
      const promised = tool?.annotations.labels;
      const answer = promised?.length
        ? ({ ...result.answer, labels: mergeLabels(result.answer.labels, promised) } as Answer)
        : result.answer;
      await this.#write([this.#answered(call, storableAnswer(answer), 'beforeTool')], NOT_DURABLE);
      return true;
    }
    if (result) {
      const changed = journaledArguments(result.arguments);
      if (changed.invalidArguments !== undefined) {
        const reason = `the beforeTool callback of agent ${agent} gave arguments that can't be used: ${changed.invalidArguments}`;
        await this.#write([this.#answered(call, error(reason, { code: 'callback_failed' }))], NOT_DURABLE);
        return true;
      }
      await this.#write(
        [
          {
            v: JOURNAL_VERSION,
            at: this.#deps.now(),
            type: 'call-changed',
            callId: call.callId,
            arguments: changed.arguments,
            by: 'beforeTool',
          },
        ],
        NOT_DURABLE,
      );
    }
    return false;
  }

  /**
   * The agent's `afterTool` callback on a call's answer: what it returns replaces the answer, which
   * still carries the labels and cost of the real one (a callback cannot wash them away).
   */
  async #afterTool(call: CallState, tool: Tool<Arguments> | undefined, answer: Answer): Promise<Answer> {
    const agent = this.#agent.name;
    const afterTool = this.#agent.callbacks.afterTool;
    if (!afterTool) return answer;
    const { result, failure } = await toolCallback('afterTool', agent, async () => {
      const changed = await invokeCallback('afterTool', agent, afterTool, {
        ...this.#callbackRun(),
        call: callbackCall(call, tool),
        answer,
      });
      if (changed === undefined) return undefined;
      checkedObject(changed, 'afterTool', agent, '{ answer }');
      return checkedAnswer((changed as { answer: unknown }).answer, 'afterTool', agent);
    });
    const replaced = failure ?? result;
    if (!replaced) return answer;
    return storableAnswer({
      ...replaced,
      measures: answer.measures,
      labels: mergeLabels(answer.labels, replaced.labels),
    } as Answer);
  }

  /** What a call of an agent tool runs its child with: the child's link is journaled durably first. */
  #childRunner(call: CallState, idempotencyKey: string): ChildRunner {
    return async ({ agent, input }) => {
      let child = this.state.children.get(call.callId);
      if (child === undefined) {
        child = childRunId(idempotencyKey);
        // A barrier: the parent's step and intent reach the disk before the child can act.
        await this.#write(
          [
            {
              v: JOURNAL_VERSION,
              at: this.#deps.now(),
              type: 'child-run-started',
              callId: call.callId,
              childRunId: child,
              agent,
            },
          ],
          DURABLE,
        );
      }
      return this.#deps.runChild({
        childRunId: child,
        agent,
        input,
        parent: { runId: this.runId, callId: call.callId },
        principal: this.state.principal,
        labels: [...this.state.labels],
        session: this.state.sessionId,
        app: this.state.app,
        state: runOnlyValues(this.state),
        budget: this.#budgetLeft(),
        signal: this.#abort.signal,
      });
    };
  }

  /** What is left of the run's usd and token limits (a child run gets no more). */
  #budgetLeft(): Budget {
    const { budget, measures } = this.state;
    const left = (limit: number, spent: number) => Math.max(limit - spent, Number.EPSILON);
    return {
      ...(budget.usd === undefined ? {} : { usd: left(budget.usd, measures.usd ?? 0) }),
      ...(budget.tokens === undefined ? {} : { tokens: left(budget.tokens, tokensUsed(measures)) }),
    };
  }

  /** The run's state values: loaded from the store the first time they are needed. */
  #stateValues(): Promise<StateValues> {
    this.#values ??= this.#deps.store
      .loadState(stateScopesOf(this.state))
      .then((stored) => new StateValues(this.state, stored));
    return this.#values;
  }

  /** Why a call of this run may not write `key`, or undefined when it may. */
  #stateWriteRefusal(key: string): string | undefined {
    if (key.startsWith('app:') && this.#agent.appState !== 'write') {
      return `agent ${this.#agent.name} may not write app: state (${key}); its definition would need appState: 'write'`;
    }
    return undefined;
  }

  /**
   * What every model step of an agent with fixed tools and plain instructions is given (made once
   * per agent the run is under); undefined for any other agent.
   */
  #fixedStep(): PreparedStep | undefined {
    const agent = this.#agent;
    if (agent.templated || !this.#tools.fixed) return undefined;
    if (this.#fixed?.agent !== agent) {
      const offered = this.#tools.fixedOffer();
      this.#fixed = { agent, prepared: { instructions: agent.instructions, offered, labels: NO_LABELS } };
    }
    return this.#fixed.prepared;
  }

  /**
   * A final answer judged before the run may complete: sent back when it does not match the
   * agent's output schema (while retries are left), or the run's failure (no retries left, or an
   * output guardrail tripped); undefined when it stands.
   */
  async #judgeFinalAnswer(
    text: string,
  ): Promise<{ readonly rejected?: string; readonly failure?: EndDetail } | undefined> {
    const agent = this.#agent;
    if (agent.output) {
      const checked = await checkFinalAnswer(agent.output, text);
      if (!checked.ok) {
        if (this.state.outputRejections < agent.maxOutputRetries) return { rejected: checked.reason };
        const tries = this.state.outputRejections + 1;
        return {
          failure: {
            error: `the final answer does not match the agent's output schema after ${tries} tr${tries > 1 ? 'ies' : 'y'}: ${checked.reason}`,
          },
        };
      }
    }
    if (agent.guardrails.output.length === 0) return undefined;
    const tripped = await firstTripped(agent.guardrails.output, 'output', text, this.#callbackRun());
    return tripped ? { failure: { error: trippedError(tripped), guardrail: tripped } } : undefined;
  }

  /** What the next model step is given: instructions with state rendered, the tools offered now, and the labels they carried. */
  async #prepareStep(): Promise<PreparedStep> {
    const agent = this.#agent;
    const values = await this.#stateValues();
    const rendered = agent.templated ? renderInstructions(agent.instructions, values) : undefined;
    const { offered, labels, unpinned } = await this.#resolveTools(values);
    return {
      instructions: rendered ? rendered.text : agent.instructions,
      offered,
      labels: mergeLabels(rendered?.labels, labels),
      ...(unpinned ? { unpinned } : {}),
    };
  }

  #resolveTools(values: StateValues): Promise<ResolvedTools> {
    return this.#tools.resolve(this.#resolveInput(values));
  }

  #resolveInput(values: StateValues): ResolveInput {
    const abort = this.#abort;
    return {
      runId: this.runId,
      principal: this.state.principal,
      sessionId: this.state.sessionId,
      step: this.state.steps + 1,
      labels: this.state.labels,
      state: values,
      get signal() {
        return abort.signal; // made only if a toolset asks for it
      },
    };
  }

  #answered(call: CallState, answer: Answer, rule?: string, state?: StateWrite[]): JournalRecord {
    this.#settled(call, settledOutcome(answer), rule);
    // Plain fields, absent ones undefined (JSON leaves them out): this is made at every call.
    return {
      v: JOURNAL_VERSION,
      at: this.#deps.now(),
      type: 'call-answered',
      callId: call.callId,
      answer,
      attempts: call.attempts,
      rule: rule || undefined,
      state,
    };
  }

  /** The policy's decision on a call; standing decisions of a person turn a gate into an allow. */
  #decide(tool: Tool<Arguments>, call: CallState): Decision {
    const facts = callFacts(tool, call.arguments, {
      labels: this.state.labels,
      agent: this.#agent.name,
      principal: this.state.principal,
    });
    const decision = decide(facts, [this.#agent.policy, this.#deps.policy], {
      fromTheUser: () => argumentsFromTheUser(call.arguments, tool, this.state),
    });
    if (decision.verdict !== 'gate') return decision;
    if (this.state.allowedTools.has(tool.name)) {
      return { verdict: 'allow', rule: 'allowed-for-run', reason: 'a person allowed this tool for this run' };
    }
    if (this.#deps.isAllowedForAgent?.(this.#agent.name, tool.name)) {
      return { verdict: 'allow', rule: 'allowed-for-agent', reason: 'a person allowed this tool for this agent' };
    }
    return decision;
  }

  async #park(kind: ParkKind, reason: string, options: ParkOptions = {}): Promise<Park> {
    const { call, measures, details, rule, external = {} } = options;
    const id = timeOrderedId('park');
    const parkedCall = call
      ? {
          callId: call.callId,
          name: call.name,
          arguments: call.arguments,
          idempotencyKey: call.idempotencyKey || `${this.runId}:${call.callId}`,
        }
      : undefined;
    const park: Park = {
      id,
      runId: this.runId,
      kind,
      reason,
      ...(details === undefined ? {} : { details }),
      ...(parkedCall ? { call: parkedCall } : {}),
      ...(measures && Object.keys(measures).length ? { measures } : {}),
      labels: [...this.state.labels],
      callHash: parkHash(id, kind, parkedCall),
      createdAt: this.#deps.now(),
      ...(rule ? { rule } : {}),
      ...external,
    };
    await this.#write([{ v: JOURNAL_VERSION, at: park.createdAt, type: 'run-parked', park }], {
      durable: true,
      row: true,
      parks: [park],
    });
    if (call) this.#settled(call, kind === 'in_doubt' ? 'in_doubt' : 'parked', rule);
    const hooks = this.#deps.hooks;
    if (hooks.has('park-opened')) {
      hooks.emit('park-opened', {
        runId: this.runId,
        agent: this.#agent.name,
        trace: this.state.trace,
        parkId: id,
        kind,
        reason,
        ...(call ? { tool: call.name } : {}),
        ...(rule ? { rule } : {}),
      });
    }
    return park;
  }

  #budgetReached(): string | undefined {
    const { budget, measures, steps } = this.state;
    if (budget.usd !== undefined && (measures.usd ?? 0) >= budget.usd) {
      return `spent ${round(measures.usd ?? 0)} usd of ${budget.usd}`;
    }
    const tokens = tokensUsed(measures);
    if (budget.tokens !== undefined && tokens >= budget.tokens) return `used ${tokens} tokens of ${budget.tokens}`;
    if (budget.steps !== undefined && steps >= budget.steps) return `made ${steps} model steps of ${budget.steps}`;
    return undefined;
  }

  /**
   * The step's answer: the model's, unless the agent's `beforeModel` callback gave one instead or
   * its `afterModel` callback replaced it (then `callback` names it). Undefined when the run was
   * cancelled or stopped meanwhile.
   */
  async #generate(prepared: {
    instructions: string;
    offered: OfferedTools;
  }): Promise<{ response: ModelResponse; callback?: 'beforeModel' | 'afterModel' } | undefined> {
    let request: ModelRequest = {
      step: this.state.steps + 1,
      instructions: prepared.instructions,
      messages: this.state.messages,
      tools: prepared.offered.definitions,
      // Plain field, absent undefined: made at every step.
      outputSchema: this.#agent.output?.jsonSchema,
    };
    const { beforeModel, afterModel } = this.#agent.callbacks;
    const agent = this.#agent.name;
    let callback: 'beforeModel' | 'afterModel' | undefined;
    let response: ModelResponse | undefined;
    if (beforeModel) {
      const changed = await invokeCallback('beforeModel', agent, beforeModel, { ...this.#callbackRun(), request });
      if (changed !== undefined) {
        checkedObject(changed, 'beforeModel', agent, '{ request } or { response }');
        if ('response' in changed) {
          response = checkedResponse(changed.response, 'beforeModel', agent);
          callback = 'beforeModel';
        } else if ('request' in changed) request = changed.request;
      }
    }
    if (response === undefined) {
      response = await this.#callModel(request);
      if (response === undefined) return undefined;
    }
    if (afterModel) {
      const changed = await invokeCallback('afterModel', agent, afterModel, {
        ...this.#callbackRun(),
        request,
        response,
      });
      if (changed !== undefined) {
        checkedObject(changed, 'afterModel', agent, '{ response }');
        response = checkedResponse(changed.response, 'afterModel', agent);
        callback = 'afterModel';
      }
    }
    return callback ? { response, callback } : { response };
  }

  /** Tells hooks how a call settled. */
  #settled(call: CallState, outcome: CallOutcome, rule?: string): void {
    const hooks = this.#deps.hooks;
    if (!hooks.has('call-settled')) return;
    hooks.emit('call-settled', {
      runId: this.runId,
      agent: this.#agent.name,
      trace: this.state.trace,
      step: this.state.steps,
      callId: call.callId,
      modelCallId: call.modelCallId,
      tool: call.name,
      definition: this.#tools.find(call.name),
      outcome,
      ...(rule ? { rule } : {}),
    });
  }

  /** What callbacks are told of the run. */
  #callbackRun(): CallbackRun {
    return {
      runId: this.runId,
      agentName: this.#agent.name,
      principal: this.state.principal,
      ...(this.state.sessionId === undefined ? {} : { sessionId: this.state.sessionId }),
      step: this.state.steps + 1,
      labels: this.state.labels,
    };
  }

  /** Asks the model, retrying what may be retried. Undefined when the run was cancelled or stopped meanwhile. */
  async #callModel(request: ModelRequest): Promise<ModelResponse | undefined> {
    const { attempts } = this.#deps.modelRetry;
    const abort = this.#abort;
    const step = request.step;
    const hub = this.#deps.hub;
    const onTextDelta = (delta: string) => {
      if (hub.hasListeners(this.runId)) {
        hub.emit({ type: 'text-delta', runId: this.runId, seq: this.state.lastSeq, step, delta });
      }
    };
    // A model that answers at once never looks at the signal: it is made only if one does.
    const options = {
      get signal() {
        return abort.signal;
      },
      onTextDelta,
    };
    const hooks = this.#deps.hooks;
    const model = this.#agent.model.id;
    for (let tries = 1; ; tries++) {
      const began = hooks.has('model-call-ended') ? performance.now() : 0;
      if (hooks.has('model-call-started')) {
        hooks.emit('model-call-started', {
          runId: this.runId,
          agent: this.#agent.name,
          trace: this.state.trace,
          step,
          model,
          called: this.#agent.model,
          attempt: tries,
        });
      }
      try {
        const response = await raceAbort(this.#agent.model.generate(request, options), abort);
        if (hooks.has('model-call-ended')) {
          hooks.emit('model-call-ended', {
            runId: this.runId,
            agent: this.#agent.name,
            trace: this.state.trace,
            step,
            model,
            called: this.#agent.model,
            response,
            attempt: tries,
            durationMs: performance.now() - began,
            usage: response.usage,
            ...(response.measures ? { measures: response.measures } : {}),
            finishReason: response.truncated ? 'length' : response.toolCalls.length > 0 ? 'tool-calls' : 'stop',
            toolCalls: response.toolCalls.length,
          });
        }
        return response;
      } catch (thrown) {
        if (hooks.has('model-call-ended')) {
          const retrying =
            !abort.aborted &&
            !(thrown instanceof WorkflowStopped) &&
            !(ModelError.isInstance(thrown) && !(thrown as ModelError).retryable) &&
            tries < attempts;
          hooks.emit('model-call-ended', {
            runId: this.runId,
            agent: this.#agent.name,
            trace: this.state.trace,
            step,
            model,
            called: this.#agent.model,
            attempt: tries,
            durationMs: performance.now() - began,
            error: abort.aborted ? 'cancelled' : describeReason(thrown),
            retrying,
          });
        }
        if (abort.aborted) return undefined;
        if (thrown instanceof WorkflowStopped) throw new RunFailure(thrown.message);
        if (ModelError.isInstance(thrown) && !(thrown as ModelError).retryable) {
          throw new RunFailure(`the model failed: ${describeReason(thrown)}`);
        }
        if (tries >= attempts) {
          throw new RunFailure(`the model failed after ${tries} attempts: ${describeReason(thrown)}`);
        }
        const delay = (thrown as { retryAfterMs?: number }).retryAfterMs ?? backoffDelay(this.#deps.modelRetry, tries);
        if (hub.hasListeners(this.runId)) {
          hub.emit({
            type: 'model-retry',
            runId: this.runId,
            seq: this.state.lastSeq,
            step,
            attempt: tries,
            delayMs: Math.round(delay),
            error: describeReason(thrown),
          });
        }
        await sleep(delay, abort.signal).catch(() => {});
      }
    }
  }

  async #end(status: EndStatus, detail: EndDetail): Promise<'ended'> {
    if (this.ended) return 'ended'; // a run ends once
    const openParks = this.#openParkIds();
    const outputKey = this.#agent.outputKey;
    // The agent's outputKey takes the final answer, labelled as the answer is (ADK's output_key).
    const writes: StateWrite[] | undefined =
      status === 'completed' && outputKey !== undefined && detail.output !== undefined
        ? [{ key: outputKey, value: detail.output, labels: [...this.state.labels] }]
        : undefined;
    await this.#write([this.#endRecord(status, detail, writes)], {
      durable: true,
      row: true,
      closeParks: openParks,
      cancelTaken: status === 'cancelled' && this.#cancelRequested,
      state: writes ? storedWrites(writes, this.state) : undefined,
    });
    return 'ended';
  }

  #endRecord(status: EndStatus, detail: EndDetail, state?: readonly StateWrite[]): JournalRecord {
    return {
      v: JOURNAL_VERSION,
      at: this.#deps.now(),
      type: 'run-ended',
      status,
      ...(detail.output === undefined ? {} : { output: detail.output }),
      ...(detail.error === undefined ? {} : { error: detail.error }),
      labels: [...this.state.labels],
      measures: { ...this.state.measures },
      ...(state ? { state } : {}),
      ...(detail.guardrail ? { guardrail: detail.guardrail } : {}),
    };
  }

  #openParkIds(): string[] {
    const open: string[] = [];
    for (const park of this.state.parks.values()) if (park.status === 'open') open.push(park.id);
    return open;
  }

  /** Applies records to the state, giving each its seq. */
  #stamp(records: readonly JournalRecord[]): StoredRecord[] {
    const stored: StoredRecord[] = [];
    for (const record of records) {
      const seq = this.state.lastSeq + 1;
      applyRecord(this.state, seq, record);
      stored.push({ runId: this.runId, seq, record });
    }
    return stored;
  }

  /** Journals `records` (their seqs given at once, before any await), and returns them as stored. */
  async #write(records: readonly JournalRecord[], options: WriteOptions): Promise<readonly StoredRecord[]> {
    const stored = this.#stamp(records);
    await this.#emitInOrder(
      this.#deps.store.write(this.#runWrite(stored, options), { durable: options.durable }),
      stored,
    );
    return stored;
  }

  /**
   * Emits `stored` once `write` is done and every record stamped before it was emitted: writes made
   * side by side (a call's question withdrawn while another call's answer is written) may finish
   * out of order (a durable one waits for the disk), and followers must see the journal in order.
   */
  async #emitInOrder(write: Promise<void>, stored: readonly StoredRecord[]): Promise<void> {
    const before = this.#emitted;
    const mine = before === undefined ? write.then(() => this.#emit(stored)) : this.#afterBoth(before, write, stored);
    this.#emitted = mine;
    try {
      await mine;
    } finally {
      if (this.#emitted === mine) this.#emitted = undefined;
    }
  }

  async #afterBoth(before: Promise<void>, write: Promise<void>, stored: readonly StoredRecord[]): Promise<void> {
    await before.catch(() => {});
    await write;
    this.#emit(stored);
  }

  /** A write of this run: its records, what else `extra` says, and this node's lease on it. */
  #runWrite(stored: readonly StoredRecord[], extra: WriteExtras): RunWrite {
    // Plain fields, absent ones undefined (every store reads them so): this is made at every step.
    return {
      runId: this.runId,
      records: stored,
      run: extra.row ? this.#row() : undefined,
      parks: extra.parks,
      closeParks: extra.closeParks?.length ? extra.closeParks : undefined,
      recordedAnswers: extra.recordedAnswers?.length ? extra.recordedAnswers : undefined,
      cancelTaken: extra.cancelTaken ? true : undefined,
      state: extra.state?.length ? { at: this.#deps.now(), writes: extra.state } : undefined,
      lease: this.lease,
    };
  }

  /** Tells followers how far a call has got (live only: progress is not journaled). */
  #emitProgress(call: CallState, progress: Progress): void {
    const hub = this.#deps.hub;
    if (!hub.hasListeners(this.runId)) return;
    hub.emit({
      type: 'call-progress',
      runId: this.runId,
      seq: this.state.lastSeq,
      callId: call.callId,
      name: call.name,
      ...progress,
    });
  }

  #emit(stored: readonly StoredRecord[]): void {
    const hub = this.#deps.hub;
    if (!hub.hasListeners(this.runId)) return;
    for (const each of stored) hub.emit(recordEvent(each));
  }

  #row(): RunRow {
    const state = this.state;
    return {
      id: state.runId,
      agent: state.agent,
      principal: state.principal,
      status: state.status,
      createdAt: state.createdAt,
      updatedAt: state.updatedAt,
      measures: state.measures,
      labels: state.labels,
      ...(state.output === undefined ? {} : { output: state.output }),
      ...(state.error === undefined ? {} : { error: state.error }),
    };
  }
}

/** How a run ends: its output, or its error (and the guardrail that stopped it, if one did). */
interface EndDetail {
  readonly output?: string;
  readonly error?: string | undefined;
  readonly guardrail?: TrippedGuardrail;
}

/** Why recovery parks a call in doubt: who may have run it, if another process (or node) did. */
function inDoubtReason(holder: CallHolder | undefined): string {
  if (!holder) return 'the call may have run but its answer was lost (the process stopped); say whether it ran';
  return (
    `the call may have run but its answer was lost: node ${holder.node} (lease epoch ${holder.epoch}) started it ` +
    `at ${new Date(holder.startedAt ?? 0).toISOString()}, then lost the run. It may have stopped, or only paused ` +
    'past its lease and still finish the call: say whether it ran (check its effect before answering retry)'
  );
}

/** Why a run whose model was cut off at its output token limit failed. */
function truncatedError(step: number): string {
  return (
    `the model's answer at step ${step} was cut off at its output token limit, so it may be incomplete: ` +
    'its text is not taken as the answer and its tool calls were not run (raise the model’s maxOutputTokens)'
  );
}

function usageMeasures(response: ModelResponse): Record<string, number> {
  const { inputTokens, outputTokens, cachedInputTokens, cacheWriteInputTokens } = response.usage;
  const measures: Record<string, number> = { inputTokens, outputTokens };
  if (cachedInputTokens) measures.cachedInputTokens = cachedInputTokens;
  if (cacheWriteInputTokens) measures.cacheWriteInputTokens = cacheWriteInputTokens;
  return addMeasures(measures, response.measures);
}

function raceAbort<T>(promise: Promise<T>, abort: RunAbort): Promise<T> {
  if (abort.aborted) return Promise.reject(abort.reason);
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = abort.onAbort(() => reject(abort.reason));
    promise.then(
      (value) => {
        stopWaiting();
        resolve(value);
      },
      (reason) => {
        stopWaiting();
        reject(reason);
      },
    );
  });
}

/**
 * A call the model asked for, as the journal keeps it: its id, the model's id for it if any, and its
 * arguments normalized (see `journaledArguments`). Fields are added one by one, absent ones left
 * out (no spreads: this is made at every call).
 */
function journaledCall(requested: RequestedToolCall, callId: string): ModelToolCall {
  const journaled = journaledArguments(requested.arguments);
  // In the order the journal has always kept them: callId, modelCallId, name, arguments, invalidArguments.
  const call: Record<string, unknown> = { callId };
  if (requested.id !== undefined) call.modelCallId = requested.id;
  call.name = requested.name;
  call.arguments = journaled.arguments;
  if (journaled.invalidArguments !== undefined) call.invalidArguments = journaled.invalidArguments;
  return call as unknown as ModelToolCall;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function describeAnswer(answer: Answer): string {
  return answer.type === 'ok' ? 'ok' : answer.reason;
}

/** An answer to a call whose arguments a person edited: the model is told what ran. */
function toldOfEdit(answer: Answer, call: CallState): Answer {
  const note = `A person (${call.editedBy}) edited the arguments before it ran; it ran with ${JSON.stringify(call.arguments)}`;
  if (answer.type === 'ok') return { ...answer, value: { note, result: answer.value } };
  return { ...answer, reason: `${note}. ${answer.reason}` };
}

/** What a write of the run carries besides its records. */
/** What a park holds besides its kind and reason (see `#park`). */
interface ParkOptions {
  /** The call it holds (none for a budget or sign-in park). */
  readonly call?: CallState;
  /** What the call reported before it parked or was lost. */
  readonly measures?: Measures;
  readonly details?: unknown;
  /** For an approval: the policy rule that held the call. */
  readonly rule?: string;
  /** Its handle and deadline (external work), the labels an answer in the call's place carries, who ran the call. */
  readonly external?: Pick<Park, 'handle' | 'deadline' | 'resultLabels' | 'holder'>;
}

/** How a write of the run is made: `durable` (on disk before it resolves) and what else it writes. */
interface WriteOptions extends WriteExtras {
  readonly durable: boolean;
}

interface WriteExtras {
  readonly row?: boolean;
  readonly parks?: readonly Park[];
  readonly closeParks?: readonly string[];
  readonly recordedAnswers?: readonly string[];
  readonly cancelTaken?: boolean;
  readonly state?: readonly ScopedStateWrite[];
}
/** The options of most writes, made once: a write is made at every step and every call. */
const NOT_DURABLE: WriteOptions = Object.freeze({ durable: false });
const DURABLE: WriteOptions = Object.freeze({ durable: true });

/** How an attempt came out, for hooks. */
/** How a call answered with `answer` settled: a refusal by policy and a cancel are not the call's failures. */
function settledOutcome(answer: Answer): CallOutcome {
  if (answer.type === 'ok') return 'ok';
  if (answer.type === 'error' && (answer.code === 'denied' || answer.code === 'cancelled')) return answer.code;
  return 'error';
}

function attemptOutcome(outcome: Attempt): { outcome: AttemptOutcome; error?: string } {
  if (outcome.kind === 'cancelled') return { outcome: 'cancelled' };
  if (outcome.kind === 'timeout') return { outcome: 'timeout', error: `timed out after ${outcome.ms} ms` };
  const answer = outcome.answer;
  if (answer.type === 'ok') return { outcome: 'ok' };
  if (answer.type === 'park') return { outcome: 'parked' };
  return { outcome: answer.code === 'lost' ? 'lost' : 'error', error: answer.reason };
}

/** A call as the agent's tool callbacks see it. */
function callbackCall(call: CallState, tool: Tool<Arguments> | undefined): CallbackCall {
  return { callId: call.callId, name: call.name, arguments: call.arguments, annotations: tool?.annotations ?? {} };
}

/** The run-only state of a run as it stands, as writes a child run starts with. */
function runOnlyValues(state: RunState): StateWrite[] {
  const values: StateWrite[] = [];
  for (const [key, entry] of state.runOnlyState) values.push({ key, value: entry.value, labels: entry.labels });
  return values;
}

/** The labels of a step whose tools read no state (fixed tools, instructions without `{key}`). */
const NO_LABELS: readonly Label[] = Object.freeze([]);

/** What a model step is given. */
interface PreparedStep {
  readonly instructions: string;
  readonly offered: OfferedTools;
  readonly labels: readonly Label[];
  /** The tool definitions from outside that brought the step labels the run did not carry yet. */
  readonly unpinned?: readonly UnpinnedTool[];
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
