import { compileSchema, describeType, type InputQuestion, type InputReply } from '@wardrik/core';
import { InvalidInputError, InvalidParkAnswerError, ParkAlreadyAnsweredError } from '../../errors.js';
import { isHttpUrl } from '../../http-url.js';
import {
  type CallHolder,
  JOURNAL_VERSION,
  type JournalRecord,
  type Park,
  type ParkDecision,
} from '../../journal/records.js';
import type { CallState, RunState } from '../../journal/state.js';
import { timeOrderedId } from '../ids.js';
import { parkHash } from '../run/park-hash.js';

/** The longest question (message) a call may ask, in characters. */
const MAX_MESSAGE = 10_000;
/** The largest schema a question may carry, as JSON. */
const MAX_SCHEMA_BYTES = 64_000;

/** What the questions of one run's calls need from its driver. */
export interface InputParksDeps {
  readonly state: RunState;
  readonly now: () => number;
  /** The process is stopping the run: nothing more is written (recovery withdraws what is left open). */
  readonly stopping: () => boolean;
  /** A question was journaled (for hooks: telemetry counts it as a park opened). */
  readonly opened?: (park: Park) => void;
  /** Journals `records`, durably, with the parks to open and close (a person sees them). */
  readonly write: (
    records: readonly JournalRecord[],
    parks: { readonly open?: readonly Park[]; readonly close?: readonly string[] },
  ) => Promise<void>;
}

interface Waiting {
  readonly callId: string;
  readonly resolve: (reply: InputReply) => void;
  readonly reject: (reason: Error) => void;
}

/**
 * The questions a run's calls ask a person while they run (`ToolContext.requestInput`): each is a
 * park of kind `input`, journaled (`input-requested`) and shown wherever parks are, while the call
 * goes on waiting in this process. A person's answer (`park-answered`) goes to the waiting call;
 * a question whose call ended, stopped waiting, or whose node stopped is withdrawn
 * (`input-withdrawn`). One per driver: it lives as long as the calls it waits for.
 */
export class InputParks {
  readonly #deps: InputParksDeps;
  readonly #waiting = new Map<string, Waiting>();

  constructor(deps: InputParksDeps) {
    this.#deps = deps;
  }

  /**
   * Opens a park asking `question` for `call` and resolves with the person's reply. Rejects with
   * `InvalidInputError` for a malformed question, and when `signal` aborts (the park is withdrawn).
   */
  async ask(call: CallState, question: InputQuestion, signal?: AbortSignal): Promise<InputReply> {
    const checked = checkQuestion(question);
    signal?.throwIfAborted();
    const park = this.#question(call, checked);
    // Waiting before the park is written: an answer that comes the instant it is on disk finds it.
    const reply = new Promise<InputReply>((resolve, reject) => {
      this.#waiting.set(park.id, { callId: call.callId, resolve, reject });
    });
    const stopWaiting = () => {
      void this.withdraw(park.id, `the call stopped waiting (${describeAbort(signal)})`).catch(() => {});
    };
    try {
      await this.#open(park);
    } catch (thrown) {
      this.#waiting.delete(park.id);
      throw thrown;
    }
    if (signal?.aborted) stopWaiting();
    else signal?.addEventListener('abort', stopWaiting, { once: true });
    try {
      return await reply;
    } finally {
      signal?.removeEventListener('abort', stopWaiting);
    }
  }

  /**
   * Opens a park asking `question` for the long-running work `call` started (it is parked
   * `external`); whoever asked waits for its answer elsewhere (see `WorkQuestions`). The questions
   * asked for that work before (e.g. before a restart) are withdrawn first.
   */
  async askForWork(call: CallState, question: InputQuestion, holder?: CallHolder): Promise<Park> {
    await this.withdrawAll('the work asked again', call.callId);
    const asked = this.#question(call, checkQuestion(question));
    // Who asks: when that process stops, nobody waits for the answer (see `Wardrik.watchExternalWork`).
    const park: Park = holder ? { ...asked, holder } : asked;
    await this.#open(park);
    return park;
  }

  async #open(park: Park): Promise<void> {
    await this.#deps.write([{ v: JOURNAL_VERSION, at: park.createdAt, type: 'input-requested', park }], {
      open: [park],
    });
    this.#deps.opened?.(park);
  }

  #question(call: CallState, checked: InputQuestion): Park {
    const state = this.#deps.state;
    const id = timeOrderedId('park');
    const parkedCall = {
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
      idempotencyKey: call.idempotencyKey || `${state.runId}:${call.callId}`,
    };
    const park: Park = {
      id,
      runId: state.runId,
      kind: 'input',
      reason: checked.message,
      details: checked,
      call: parkedCall,
      labels: [...state.labels],
      callHash: parkHash(id, 'input', parkedCall),
      createdAt: this.#deps.now(),
    };
    return park;
  }

  /** Whether a call of this process waits for park `parkId`'s answer. */
  isWaiting(parkId: string): boolean {
    return this.#waiting.has(parkId);
  }

  /** Hands a journaled answer to the call that asked (if it still waits here). */
  answered(park: Park, decision: ParkDecision): void {
    const waiting = this.#waiting.get(park.id);
    if (!waiting) return;
    this.#waiting.delete(park.id);
    waiting.resolve(replyOf(decision));
  }

  /**
   * Refuses an answer to a question no call waits for any more (its node stopped, or it is being
   * withdrawn): journals the withdrawal if it is still open, and throws saying why.
   */
  async refuseStale(parkId: string): Promise<never> {
    await this.withdraw(parkId, 'no call waits for it any more (the node that ran it stopped)');
    throw new ParkAlreadyAnsweredError(`park ${parkId} is closed: the call that asked no longer waits for an answer`);
  }

  /** Closes an open question without an answer, saying why; its waiting call (if any) is told. */
  async withdraw(parkId: string, reason: string): Promise<void> {
    const waiting = this.#waiting.get(parkId);
    this.#waiting.delete(parkId);
    waiting?.reject(new Error(`the question to a person was withdrawn: ${reason}`));
    // Checked and stamped with no await between: an answer or the run's end can't slip in.
    if (this.#deps.stopping() || this.#deps.state.parks.get(parkId)?.status !== 'open') return;
    await this.#deps.write([{ v: JOURNAL_VERSION, at: this.#deps.now(), type: 'input-withdrawn', parkId, reason }], {
      close: [parkId],
    });
  }

  /** Withdraws the open questions of call `callId` (it has its answer), or of every call when none is named. */
  async withdrawAll(reason: string, callId?: string): Promise<void> {
    for (const park of [...this.#deps.state.parks.values()]) {
      if (park.kind !== 'input' || park.status !== 'open') continue;
      if (callId !== undefined && park.call?.callId !== callId) continue;
      await this.withdraw(park.id, reason);
    }
  }

  /** Whether any question is open in the run's state (a count the journal keeps: asked after every call). */
  get anyOpen(): boolean {
    return this.#deps.state.openQuestions > 0;
  }
}

/** The reply a person's decision on an `input` park means. */
export function replyOf(decision: ParkDecision): InputReply {
  if (decision.type === 'answer') {
    const value = decision.value;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { action: 'accept', content: value as Record<string, unknown> }
      : { action: 'accept' };
  }
  return decision.type === 'deny' ? { action: 'decline' } : { action: 'cancel' };
}

/**
 * Checks a person's answer to an `input` park before it is journaled: accepting a form question
 * needs an object that fits its schema, with the schema's defaults filled in where the person left
 * a field out (MCP's SEP-1034); accepting a URL question needs no value. Throws
 * `InvalidParkAnswerError` naming the field; the park stays open.
 */
export function checkInputAnswer(park: Park, decision: ParkDecision): ParkDecision {
  if (decision.type !== 'answer') return decision;
  const question = park.details as InputQuestion;
  if (question.mode === 'url') {
    if (decision.value !== null && decision.value !== undefined && !isEmptyObject(decision.value)) {
      throw new InvalidParkAnswerError(
        `decision.value: park ${park.id} asks the person to open a URL; accepting it takes no value (give {} or null)`,
      );
    }
    return { type: 'answer', value: null };
  }
  const value = decision.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidParkAnswerError(
      `decision.value: expected an object with the fields park ${park.id} asks for, got ${describeType(value)}`,
    );
  }
  let checked: ReturnType<ReturnType<typeof compileSchema>['validate']>;
  try {
    checked = compileSchema(question.schema).validate(value);
  } catch (cause) {
    throw new InvalidParkAnswerError(`park ${park.id}: its question's schema can't be used (${describeType(cause)})`, {
      cause,
    });
  }
  if (checked instanceof Promise) throw new InvalidParkAnswerError(`park ${park.id}: its schema can't be checked here`);
  if (!checked.ok) {
    const problems = checked.issues.map((issue) => `${issue.path || 'value'}: ${issue.message}`).join('; ');
    throw new InvalidParkAnswerError(`decision.value does not fit the question's schema: ${problems}`);
  }
  return { type: 'answer', value: checked.value };
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** Checks a question as a call gave it, naming what is wrong. */
export function checkQuestion(question: unknown): InputQuestion {
  if (typeof question !== 'object' || question === null || Array.isArray(question)) {
    throw new InvalidInputError(`question: expected an object { mode, message, … }, got ${describeType(question)}`);
  }
  const { mode, message } = question as Record<string, unknown>;
  if (typeof message !== 'string' || message.trim() === '') {
    throw new InvalidInputError('question.message: expected the text to show the person (a non-empty string)');
  }
  if (message.length > MAX_MESSAGE) {
    throw new InvalidInputError(`question.message: ${message.length} characters, more than the ${MAX_MESSAGE} allowed`);
  }
  if (mode === 'url') {
    const { url, elicitationId } = question as Record<string, unknown>;
    if (typeof url !== 'string' || !isHttpUrl(url)) {
      const given =
        typeof url === 'string' ? `${describeType(url)} ${JSON.stringify(url.slice(0, 200))}` : describeType(url);
      throw new InvalidInputError(`question.url: expected an http or https URL, got ${given}`);
    }
    if (elicitationId !== undefined && typeof elicitationId !== 'string') {
      throw new InvalidInputError(`question.elicitationId: expected a string, got ${describeType(elicitationId)}`);
    }
    return { mode, message, url, ...(elicitationId === undefined ? {} : { elicitationId }) };
  }
  if (mode !== 'form') {
    throw new InvalidInputError(`question.mode: expected 'form' or 'url', got ${JSON.stringify(mode)}`);
  }
  const { schema } = question as Record<string, unknown>;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new InvalidInputError(`question.schema: expected an object JSON Schema, got ${describeType(schema)}`);
  }
  if ((schema as Record<string, unknown>).type !== 'object') {
    throw new InvalidInputError(`question.schema.type: expected 'object' (the fields to fill in)`);
  }
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_BYTES) {
    throw new InvalidInputError(`question.schema: ${size} bytes as JSON, more than the ${MAX_SCHEMA_BYTES} allowed`);
  }
  return { mode, message, schema: schema as Record<string, unknown> };
}

function describeAbort(signal: AbortSignal | undefined): string {
  const reason = signal?.reason;
  return reason instanceof Error ? reason.message : reason === undefined ? 'aborted' : String(reason);
}
