import {
  type Answer,
  type Approval,
  addMeasures,
  type Label,
  type Measures,
  mergeLabels,
  normalizeArguments,
  type StateEntry,
  stateScope,
} from '@wardrik/core';
import type { Message, ModelToolCall } from '../model/model.js';
import type {
  Budget,
  CallHolder,
  JournalRecord,
  ParentLink,
  Park,
  ParkDecision,
  StateWrite,
  StoredRecord,
} from './records.js';
import type { RunStatus } from './run-status.js';

/** Where one call of the current step stands. */
export type CallStatus = 'requested' | 'started' | 'parked' | 'to-run' | 'answered';

/** One call of the current model step. */
export interface CallState {
  readonly callId: string;
  readonly modelCallId?: string;
  readonly name: string;
  /**
   * The arguments it runs with, normalized once (a JSON object; a string holding one is parsed):
   * what the policy judges, a park shows, its hash covers and the tool receives. A person's edit
   * replaces them.
   */
  arguments: unknown;
  /** Why the model's arguments can't be used (not a JSON object, too deep): the call is answered with this error. */
  invalidArguments?: string;
  /** Set when a person edited the arguments before it ran. */
  editedBy?: string;
  idempotencyKey: string;
  repeatable: boolean;
  status: CallStatus;
  /** Intents written so far. */
  attempts: number;
  answer?: Answer;
  parkId?: string;
  /** Set when a person answered this call's park with `retry`. */
  approval?: Approval;
  /** Set once the agent's `beforeTool` callback has seen the call (it changed its arguments, or let it be). */
  changedBy?: 'beforeTool';
  /** The labels every answer of the call carries (its tool's `labels` annotation), from its intent. */
  labels?: readonly Label[];
  /** Who started its latest attempt, when it may end in doubt (from its intent). */
  holder?: CallHolder;
}

/** A park as the run sees it. */
export interface ParkState extends Park {
  status: 'open' | 'answered' | 'closed';
  decision?: ParkDecision;
}

/** A run, as rebuilt from its journal alone. */
export interface RunState {
  readonly runId: string;
  /** The run's own agent (the one it was started with). */
  agent: string;
  /** The agent the run goes on under now: its own, or the one it was last transferred to. */
  activeAgent: string;
  /** The agent that made the latest model step: its calls run under it, even after a transfer among them. */
  stepAgent: string;
  /** Transfers so far. */
  transfers: number;
  /** For a child run: the run and call that started it. */
  parent?: ParentLink;
  /** The child runs this run's calls started, by call id. */
  children: Map<string, string>;
  /** The trace context the run's telemetry continues, if it had any when it started. */
  trace?: Readonly<Record<string, string>>;
  principal: string;
  /** Whose `user:` and `app:` state the run reads. */
  app: string;
  /** The session the run continues, if any. */
  sessionId?: string;
  /** How many of `messages` came before this run (its session's history). */
  historyLength: number;
  /** State kept in the journal only: `temp:` keys, and unprefixed keys of a run without a session. */
  runOnlyState: Map<string, StateEntry>;
  /** The run-only writes the run made itself, the latest per key: what a child run hands back to its parent. */
  runOnlyWrites: Map<string, StateWrite>;
  /** The tools the latest model step was offered, by name. */
  offeredTools: readonly string[];
  input: string;
  status: RunStatus;
  budget: Budget;
  maxSteps: number;
  /** Model steps made. */
  steps: number;
  /** Final answers sent back for not matching the agent's output schema. */
  outputRejections: number;
  measures: Measures;
  labels: Label[];
  /** The conversation as the model sees it. */
  messages: Message[];
  /** The calls of the latest model step, in the order the model asked for them. */
  calls: CallState[];
  /** The same calls by id. */
  callsById: Map<string, CallState>;
  /** How many of them have no answer yet. */
  unanswered: number;
  /** The latest model step was cut off at its output token limit (its calls are never run). */
  truncated: boolean;
  parks: Map<string, ParkState>;
  openParks: number;
  /** How many of its calls' questions to a person (`input` parks) are open: they count in no `openParks`. */
  openQuestions: number;
  /** Tools a person allowed for the rest of this run. */
  allowedTools: Set<string>;
  output?: string;
  error?: string;
  createdAt: number;
  updatedAt: number;
  /** The seq of the last record applied. */
  lastSeq: number;
}

/** An empty state for `runId`, before its `run-started` record. */
export function emptyState(runId: string): RunState {
  return {
    runId,
    agent: '',
    activeAgent: '',
    stepAgent: '',
    transfers: 0,
    children: new Map(),
    principal: '',
    app: '',
    historyLength: 0,
    runOnlyState: new Map(),
    runOnlyWrites: new Map(),
    offeredTools: [],
    input: '',
    status: 'running',
    budget: {},
    maxSteps: 0,
    steps: 0,
    outputRejections: 0,
    measures: {},
    labels: [],
    messages: [],
    calls: [],
    callsById: new Map(),
    unanswered: 0,
    truncated: false,
    parks: new Map(),
    openParks: 0,
    openQuestions: 0,
    allowedTools: new Set(),
    createdAt: 0,
    updatedAt: 0,
    lastSeq: 0,
  };
}

/**
 * Rebuilds a run's state from its journal.
 *
 * @example
 * ```ts
 * const state = rebuildState(runId, await store.loadJournal(runId))
 * ```
 */
export function rebuildState(runId: string, journal: readonly StoredRecord[]): RunState {
  const state = emptyState(runId);
  for (const stored of journal) applyRecord(state, stored.seq, stored.record);
  return state;
}

/** Applies one record to the state, in place. The live run and a rebuild use this same function. */
export function applyRecord(state: RunState, seq: number, record: JournalRecord): void {
  state.lastSeq = seq;
  state.updatedAt = record.at;
  switch (record.type) {
    case 'run-started':
      state.agent = record.agent;
      state.activeAgent = record.agent;
      state.stepAgent = record.agent;
      if (record.parent) state.parent = record.parent;
      if (record.trace) state.trace = record.trace;
      state.principal = record.principal;
      state.input = record.input;
      state.budget = { ...record.budget };
      state.maxSteps = record.maxSteps;
      state.createdAt = record.at;
      state.app = record.app ?? record.agent;
      if (record.session !== undefined) state.sessionId = record.session;
      if (record.history) {
        state.messages.push(...record.history);
        state.historyLength = record.history.length;
      }
      if (record.labels?.length) state.labels = mergeLabels(state.labels, record.labels);
      for (const value of record.state ?? []) state.runOnlyState.set(value.key, stateEntry(value));
      state.messages.push({ role: 'user', content: record.input });
      return;
    case 'model-step':
      state.steps = record.step;
      state.stepAgent = record.agent ?? state.agent;
      state.measures = addMeasures(state.measures, record.measures);
      state.messages.push({ role: 'assistant', text: record.text, toolCalls: record.toolCalls });
      if (record.outputRejected !== undefined) {
        state.outputRejections += 1;
        state.messages.push({ role: 'user', content: outputRejectedMessage(record.outputRejected) });
      }
      state.truncated = record.truncated === true;
      if (record.tools) state.offeredTools = record.tools;
      if (record.labels?.length) state.labels = mergeLabels(state.labels, record.labels);
      state.calls = state.truncated ? [] : record.toolCalls.map(requestedCall);
      state.callsById = new Map(state.calls.map((call) => [call.callId, call]));
      state.unanswered = state.calls.length;
      return;
    case 'call-changed': {
      const call = findCall(state, record.callId);
      call.arguments = record.arguments;
      call.changedBy = record.by;
      return;
    }
    case 'agent-transferred':
      state.activeAgent = record.to;
      state.transfers += 1;
      return;
    case 'child-run-started':
      state.children.set(record.callId, record.childRunId);
      return;
    case 'call-started': {
      const call = findCall(state, record.callId);
      call.status = 'started';
      call.attempts = record.attempt;
      call.repeatable = record.repeatable;
      call.idempotencyKey = record.idempotencyKey;
      if (record.labels?.length) call.labels = record.labels;
      if (record.holder) call.holder = { ...record.holder, startedAt: record.at };
      return;
    }
    case 'call-answered': {
      const call = findCall(state, record.callId);
      if (call.status !== 'answered') state.unanswered -= 1;
      call.status = 'answered';
      call.answer = record.answer;
      if (record.state) applyRunOnlyWrites(state, record.state);
      state.measures = addMeasures(state.measures, record.answer.measures);
      if (record.answer.labels.length) state.labels = mergeLabels(state.labels, record.answer.labels);
      if (state.unanswered === 0) {
        for (const each of state.calls) state.messages.push(toolMessage(each));
      }
      return;
    }
    case 'run-parked': {
      state.parks.set(record.park.id, { ...record.park, status: 'open' });
      state.openParks += 1;
      state.status = 'parked';
      if (record.park.measures) state.measures = addMeasures(state.measures, record.park.measures);
      if (record.park.call) {
        const call = findCall(state, record.park.call.callId);
        call.status = 'parked';
        call.parkId = record.park.id;
      }
      return;
    }
    case 'input-requested':
      // A call's question to a person: the run goes on (its call waits), so it counts in no `openParks`.
      state.parks.set(record.park.id, { ...record.park, status: 'open' });
      state.openQuestions += 1;
      return;
    case 'input-withdrawn': {
      const park = state.parks.get(record.parkId);
      if (!park) throw new Error(`journal of run ${state.runId}: input-withdrawn names unknown park ${record.parkId}`);
      if (park.status === 'open') state.openQuestions -= 1;
      park.status = 'closed';
      return;
    }
    case 'park-answered': {
      const park = state.parks.get(record.parkId);
      if (!park) throw new Error(`journal of run ${state.runId}: park-answered names unknown park ${record.parkId}`);
      if (park.kind === 'input' && park.status === 'open') state.openQuestions -= 1;
      park.status = 'answered';
      park.decision = record.decision;
      if (park.kind === 'input') return; // the call that asked goes on with the answer
      state.openParks -= 1;
      if (state.openParks === 0) state.status = 'running';
      if (record.decision.type === 'raise-budget') state.budget = { ...state.budget, ...record.decision.budget };
      const decision = record.decision;
      if ((decision.type === 'retry' || decision.type === 'approve' || decision.type === 'edit') && park.call) {
        const call = findCall(state, park.call.callId);
        call.status = 'to-run';
        call.approval = {
          parkId: park.id,
          by: record.by,
          ...(decision.note === undefined ? {} : { note: decision.note }),
        };
        if (decision.type === 'edit') {
          call.arguments = decision.arguments;
          call.editedBy = record.by;
        }
        if (decision.type === 'approve' && decision.remember === 'run') state.allowedTools.add(park.call.name);
      }
      return;
    }
    case 'labels-released':
      state.labels = state.labels.filter((label) => !record.labels.includes(label));
      return;
    case 'run-ended':
      state.status = record.status;
      state.output = record.output;
      state.error = record.error;
      for (const park of state.parks.values()) if (park.status === 'open') park.status = 'closed';
      state.openParks = 0;
      if (record.state) applyRunOnlyWrites(state, record.state);
      return;
  }
}

/** What the model is told of a final answer that does not match the agent's output schema. */
export function outputRejectedMessage(reason: string): string {
  return `Your final answer does not match the required output schema (${reason}). Answer again with only a JSON object that matches it.`;
}

/** Applies the writes of run-only keys (the store keeps the others), and keeps them as the run's own. */
function applyRunOnlyWrites(state: RunState, writes: readonly StateWrite[]): void {
  for (const write of writes) {
    if (!isRunOnlyKey(write.key, state.sessionId)) continue;
    if (write.deleted) state.runOnlyState.delete(write.key);
    else state.runOnlyState.set(write.key, stateEntry(write));
    state.runOnlyWrites.delete(write.key); // the latest write of a key comes last
    state.runOnlyWrites.set(write.key, write);
  }
}

function stateEntry(write: StateWrite): StateEntry {
  return { value: write.value, labels: write.labels };
}

function requestedCall(call: ModelToolCall): CallState {
  // Journals written before arguments were normalized may hold a JSON string: normalize here too.
  const normalized = call.invalidArguments === undefined ? normalizeArguments(call.arguments) : undefined;
  const invalid = call.invalidArguments ?? (normalized?.ok === false ? normalized.reason : undefined);
  return {
    callId: call.callId,
    ...(call.modelCallId === undefined ? {} : { modelCallId: call.modelCallId }),
    name: call.name,
    arguments: normalized?.ok ? normalized.value : call.arguments,
    ...(invalid === undefined ? {} : { invalidArguments: invalid }),
    idempotencyKey: '',
    repeatable: false,
    status: 'requested',
    attempts: 0,
  };
}

function findCall(state: RunState, callId: string): CallState {
  const call = state.callsById.get(callId);
  if (!call) throw new Error(`journal of run ${state.runId}: no call ${callId} in the current step`);
  return call;
}

function toolMessage(call: CallState): Message {
  const answer = call.answer as Answer;
  return {
    role: 'tool',
    callId: call.callId,
    ...(call.modelCallId === undefined ? {} : { modelCallId: call.modelCallId }),
    name: call.name,
    content: answer.type === 'ok' ? answer.value : { error: answer.type === 'error' ? answer.reason : answer.reason },
    isError: answer.type !== 'ok',
    labels: answer.labels,
  };
}

/** Whether `key` lives in the run's journal only: `temp:` keys, and unprefixed keys of a run without a session. */
export function isRunOnlyKey(key: string, sessionId: string | undefined): boolean {
  const scope = stateScope(key);
  return scope === 'temp' || (scope === 'session' && sessionId === undefined);
}

/** The tokens a run has used: input plus output. */
export function tokensUsed(measures: Measures): number {
  return (measures.inputTokens ?? 0) + (measures.outputTokens ?? 0);
}
