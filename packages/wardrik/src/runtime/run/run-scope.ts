import type { Answer, Progress } from '@wardrik/core';
import type { Agent } from '../../agent.js';
import { MAX_TRANSFERS } from '../../agents/transfer.js';
import {
  type Budget,
  type CallHolder,
  JOURNAL_VERSION,
  type JournalRecord,
  type Park,
  type ParkKind,
  type StateWrite,
} from '../../journal/records.js';
import { type CallState, type RunState, tokensUsed } from '../../journal/state.js';
import { stateScopesOf } from '../../store/session-store.js';
import type { ResolvedTools } from '../../tool-sources/tool-offer.js';
import { ToolResolver } from '../../tool-sources/tool-resolver.js';
import type { ResolveInput } from '../../tool-sources/toolset-context.js';
import type { CallbackRun } from '../callbacks.js';
import { settledOutcome } from '../calls/call-outcomes.js';
import type { AnsweredOptions, CallScope, ParkOptions } from '../calls/call-scope.js';
import { InputParks } from '../calls/input-parks.js';
import type { CallOutcome } from '../hooks.js';
import type { DriverDeps } from './driver-deps.js';
import { RunAbort } from './run-abort.js';
import { RunFailure } from './run-failure.js';
import { RunParks } from './run-parks.js';
import { RunWriter } from './run-writer.js';
import { StateValues } from './state-values.js';

/** The reason the process gives when it stops a run (shutting down): not a cancel. */
export const shutdown = Symbol('shutdown');

/**
 * One run as its step loop, its parks and its calls' phases share it (the `CallScope` the driver
 * builds): the state, the agent it is under and that agent's tools, the writer, the abort, and the
 * run's small verbs. The driver drives; this holds.
 */
export class RunScope implements CallScope {
  readonly state: RunState;
  readonly deps: DriverDeps;
  readonly writer: RunWriter;
  readonly abort = new RunAbort();
  readonly inputs: InputParks;
  readonly parks: RunParks;
  /** The agent the run goes on under now (its own, or the one it was transferred to). */
  agent: Agent;
  tools: ToolResolver;
  /** Why the run is being cancelled, once it is. */
  cancelReason: string | undefined;
  /** The cancel being acted on was requested by another node (its end clears the request). */
  cancelRequested = false;
  /** The run's state values, loaded from the store once per driver. */
  #values: Promise<StateValues> | undefined;
  /** The step whose calls transferred the run (one transfer a step). */
  #transferStep = -1;

  constructor(agent: Agent, state: RunState, deps: DriverDeps) {
    this.agent = agent;
    this.state = state;
    this.deps = deps;
    this.writer = new RunWriter({ state, store: deps.store, hub: deps.hub, now: deps.now });
    this.tools = this.#resolverFor(agent);
    this.parks = new RunParks(this);
    this.inputs = new InputParks({
      state,
      now: deps.now,
      stopping: () => this.stopping(),
      opened: (park) => this.parks.opened(park),
      write: async (records, parks) => {
        await this.writer.write(records, {
          durable: true,
          parks: parks.open,
          closeParks: parks.close ? [...parks.close] : undefined,
        });
      },
    });
  }

  get runId(): string {
    return this.state.runId;
  }

  #resolverFor(agent: Agent): ToolResolver {
    return new ToolResolver(
      agent,
      this.deps.workers,
      this.deps.toolsetTimeoutMs,
      this.deps.agents.addedTools(agent.name),
    );
  }

  /** The run goes on under `name` from its next model step (it was transferred there). */
  switchTo(name: string): void {
    const target = this.deps.agents.get(name);
    if (!target) throw new RunFailure(`the run was transferred to agent ${name}, which this Wardrik does not run`);
    this.agent = target;
    this.tools = this.#resolverFor(target);
  }

  stopping(): boolean {
    return this.abort.reason === shutdown;
  }

  holder(): CallHolder | undefined {
    const lease = this.writer.lease;
    if (!lease) return undefined;
    return { node: lease.node, incarnation: this.deps.incarnation, epoch: lease.epoch };
  }

  stateValues(): Promise<StateValues> {
    this.#values ??= this.deps.store
      .loadState(stateScopesOf(this.state))
      .then((stored) => new StateValues(this.state, stored));
    return this.#values;
  }

  resolveTools(values: StateValues): Promise<ResolvedTools> {
    return this.tools.resolve(this.#resolveInput(values));
  }

  #resolveInput(values: StateValues): ResolveInput {
    const abort = this.abort;
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

  budgetReached(): string | undefined {
    const { budget, measures, steps } = this.state;
    if (budget.usd !== undefined && (measures.usd ?? 0) >= budget.usd) {
      return `spent ${round(measures.usd ?? 0)} usd of ${budget.usd}`;
    }
    const tokens = tokensUsed(measures);
    if (budget.tokens !== undefined && tokens >= budget.tokens) return `used ${tokens} tokens of ${budget.tokens}`;
    if (budget.steps !== undefined && steps >= budget.steps) return `made ${steps} model steps of ${budget.steps}`;
    return undefined;
  }

  budgetLeft(): Budget {
    const { budget, measures } = this.state;
    const left = (limit: number, spent: number) => Math.max(limit - spent, Number.EPSILON);
    return {
      ...(budget.usd === undefined ? {} : { usd: left(budget.usd, measures.usd ?? 0) }),
      ...(budget.tokens === undefined ? {} : { tokens: left(budget.tokens, tokensUsed(measures)) }),
    };
  }

  callbackRun(): CallbackRun {
    return {
      runId: this.runId,
      agentName: this.agent.name,
      principal: this.state.principal,
      ...(this.state.sessionId === undefined ? {} : { sessionId: this.state.sessionId }),
      step: this.state.steps + 1,
      labels: this.state.labels,
    };
  }

  park(kind: ParkKind, reason: string, options?: ParkOptions): Promise<Park> {
    return this.parks.park(kind, reason, options);
  }

  answered(call: CallState, answer: Answer, options?: AnsweredOptions): JournalRecord {
    const rule = options?.rule;
    this.callSettled(call, settledOutcome(answer), rule);
    // Plain fields, absent ones undefined (JSON leaves them out): this is made at every call.
    return {
      v: JOURNAL_VERSION,
      at: this.deps.now(),
      type: 'call-answered',
      callId: call.callId,
      answer,
      attempts: call.attempts,
      rule: rule || undefined,
      state: options?.state,
    };
  }

  callSettled(call: CallState, outcome: CallOutcome, rule: string | undefined): void {
    const hooks = this.deps.hooks;
    if (!hooks.has('call-settled')) return;
    hooks.emit('call-settled', {
      runId: this.runId,
      agent: this.agent.name,
      trace: this.state.trace,
      step: this.state.steps,
      callId: call.callId,
      modelCallId: call.modelCallId,
      tool: call.name,
      definition: this.tools.find(call.name),
      outcome,
      ...(rule ? { rule } : {}),
    });
  }

  transferRefusal(): string | undefined {
    if (this.state.transfers >= MAX_TRANSFERS) {
      return `this run was handed between agents ${this.state.transfers} times already, the most allowed (${MAX_TRANSFERS}): answer without transferring`;
    }
    if (this.#transferStep === this.state.steps) {
      return `this step transferred the run already (one transfer a step): it goes to ${this.state.activeAgent}`;
    }
    this.#transferStep = this.state.steps;
    return undefined;
  }

  stateWriteRefusal(key: string): string | undefined {
    if (key.startsWith('app:') && this.agent.appState !== 'write') {
      return `agent ${this.agent.name} may not write app: state (${key}); its definition would need appState: 'write'`;
    }
    return undefined;
  }

  async childWrites(callId: string): Promise<readonly StateWrite[] | undefined> {
    const child = this.state.children.get(callId);
    return child === undefined ? undefined : this.deps.childStateWrites(child);
  }

  emitProgress(call: CallState, progress: Progress): void {
    const hub = this.deps.hub;
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
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
