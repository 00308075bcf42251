import type { Answer, Arguments, Measures, Progress, Tool } from '@wardrik/core';
import type { Agent } from '../../agent.js';
import type { Budget, CallHolder, JournalRecord, Park, ParkKind, StateWrite } from '../../journal/records.js';
import type { CallState, RunState } from '../../journal/state.js';
import type { ResolvedTools } from '../../tool-sources/tool-offer.js';
import type { ToolResolver } from '../../tool-sources/tool-resolver.js';
import type { CallbackRun } from '../callbacks.js';
import type { CallOutcome } from '../hooks.js';
import type { DriverDeps } from '../run/driver-deps.js';
import type { RunAbort } from '../run/run-abort.js';
import type { RunWriter } from '../run/run-writer.js';
import type { StateValues } from '../run/state-values.js';
import type { InputParks } from './input-parks.js';

/**
 * What a call's phases (resolve → decide → attempt → settle) need from the run they belong to: its
 * state and agent, the writer every record goes through, the tools, the abort, and the run's
 * few verbs (park, answer, stop). The run builds one (`run/run-scope.ts`); no phase reaches into
 * the driver.
 */
export interface CallScope {
  readonly runId: string;
  readonly state: RunState;
  /** The agent the run goes on under now (its own, or the one it was transferred to). */
  readonly agent: Agent;
  readonly deps: DriverDeps;
  readonly writer: RunWriter;
  /** "Who runs this call?": the tool sources of the agent the run is under. */
  readonly tools: ToolResolver;
  /** Stops the run: a cancel, or the process shutting down (see `stopping`). */
  readonly abort: RunAbort;
  /** The questions calls ask a person while they run (`input` parks). */
  readonly inputs: InputParks;
  /** Whether the process is shutting down (then nothing more is written). */
  stopping(): boolean;
  /** The node running this run's calls now, and its lease on the run (journaled with each call that may end in doubt). */
  holder(): CallHolder | undefined;
  /** The run's state values: loaded from the store the first time they are needed. */
  stateValues(): Promise<StateValues>;
  /** This step's tools, asked of the tool sources anew. */
  resolveTools(values: StateValues): Promise<ResolvedTools>;
  /** Which of the run's limits it reached, if one. */
  budgetReached(): string | undefined;
  /** What is left of the run's usd and token limits (a child run gets no more). */
  budgetLeft(): Budget;
  /** What callbacks are told of the run. */
  callbackRun(): CallbackRun;
  /** Journals a park of the run (of a call, when `options.call`), durably. */
  park(kind: ParkKind, reason: string, options?: ParkOptions): Promise<Park>;
  /** The record that answers `call` with `answer` (hooks are told how it settled). */
  answered(call: CallState, answer: Answer, options?: AnsweredOptions): JournalRecord;
  /** Tells hooks how a call settled (`rule`: the policy rule that decided it, if one). */
  callSettled(call: CallState, outcome: CallOutcome, rule: string | undefined): void;
  /** Why a transfer call may not transfer the run, or undefined when it may (and then it is the step's one transfer). */
  transferRefusal(): string | undefined;
  /** Why a call of this run may not write `key`, or undefined when it may. */
  stateWriteRefusal(key: string): string | undefined;
  /** The run-only state writes the child run of call `callId` made, once it ended: they go back with the call's answer. */
  childWrites(callId: string): Promise<readonly StateWrite[] | undefined>;
  /** Tells followers how far a call has got (live only: progress is not journaled). */
  emitProgress(call: CallState, progress: Progress): void;
}

/** What a call's answer record carries besides the answer. */
export interface AnsweredOptions {
  /** The policy rule (or callback) that decided the call. */
  readonly rule?: string | undefined;
  /** The state writes that go with the answer. */
  readonly state?: StateWrite[] | undefined;
}

/** What a park holds besides its kind and reason. */
export interface ParkOptions {
  /** The call it holds (none for a budget or sign-in park). */
  readonly call?: CallState;
  /** What the call reported before it parked or was lost. */
  readonly measures?: Measures | undefined;
  readonly details?: unknown;
  /** For an approval: the policy rule that held the call. */
  readonly rule?: string;
  /** Its handle and deadline (external work), the labels an answer in the call's place carries, who ran the call. */
  readonly external?: Pick<Park, 'handle' | 'deadline' | 'resultLabels' | 'holder'>;
}

/** One call as its phases carry it along: what each phase found out, for the next. */
export interface CallTarget {
  readonly call: CallState;
  /** Its intent is on disk (it passed the policy before the process stopped): it runs as it was. */
  readonly resumed: boolean;
  /** The run's state values, which the call reads and writes. */
  readonly values: StateValues;
  /** Who runs it (resolve): undefined when no source offers it (then the agent's own tools are tried). */
  tool: Tool<Arguments> | undefined;
  /** The rule that let it run (decide): `approved`, `recovered` or a policy rule. */
  rule: string | undefined;
}
