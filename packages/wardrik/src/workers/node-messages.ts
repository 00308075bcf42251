import type { Progress } from '@wardrik/core';
import { MAX_NOTE_BYTES } from '../store/worker-store.js';
import type { CallOutcome } from './pending-call.js';
import { readProgress } from './progress-notification.js';
import type { CallMeta } from './worker-connection.js';

/*
 * What nodes say to each other about worker calls, as the bodies of their messages (kept in the
 * store until taken) and notes (signals, not kept). Everything read from another node is checked
 * field by field: a node that sends nonsense gets its message ignored and logged, never more.
 */

/** A call for one of the receiving node's workers. */
export interface CallMail {
  readonly type: 'call';
  /** The call's id: also the id of the message carrying it (the sender may withdraw it until taken). */
  readonly call: string;
  readonly worker: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly meta: CallMeta;
  /** How long the call may go without an answer or progress (ms). */
  readonly idleTimeoutMs: number;
  /** The most the call may take in all (ms). */
  readonly maxTimeMs: number;
}

/** How a call sent by the receiving node came out. */
export interface OutcomeMail {
  readonly type: 'outcome';
  readonly call: string;
  readonly outcome: CallOutcome;
  /** The revision of the worker's tools when it answered: the caller looks at its offers again if it knows an older one. */
  readonly revision?: number;
}

/** The sender stopped waiting for a call it sent (the run was cancelled, or it gave up). */
export interface CancelMail {
  readonly type: 'cancel';
  readonly call: string;
  readonly reason: string;
}

/** A message between nodes about worker calls. */
export type NodeMail = CallMail | OutcomeMail | CancelMail;

/** Progress a worker reported for a call another node sent (a note: best effort). */
export interface ProgressNote {
  readonly type: 'progress';
  readonly call: string;
  readonly progress: Progress;
}

/** A message's body, or why it cannot be used. */
export type ReadMail = { readonly ok: true; readonly mail: NodeMail } | { readonly ok: false; readonly reason: string };

/** The longest time a call may be given (ms): about 24 days, what a timer can wait. */
const MAX_TIMER_MS = 2_147_483_647;

/** The longest progress message passed between nodes (characters); a longer one is cut. */
const MAX_PROGRESS_MESSAGE = 1_000;

/**
 * Reads a message's body (JSON) as a `NodeMail`, checking every field.
 *
 * @example
 * ```ts
 * readMail('{"type":"cancel","call":"c1","reason":"the run was cancelled"}') // { ok: true, mail: { type: 'cancel', … } }
 * readMail('{"type":"call"}')                                             // { ok: false, reason: 'call: call must be a string' }
 * ```
 */
export function readMail(body: string): ReadMail {
  const value = parse(body);
  if (!isRecord(value)) return { ok: false, reason: 'not a JSON object' };
  const { type, call } = value;
  if (typeof call !== 'string' || call === '') return { ok: false, reason: `${String(type)}: call must be a string` };
  if (type === 'cancel') {
    return { ok: true, mail: { type, call, reason: typeof value.reason === 'string' ? value.reason : 'cancelled' } };
  }
  if (type === 'outcome') {
    const outcome = readOutcome(value.outcome);
    if (!outcome) return { ok: false, reason: 'outcome: not a call outcome' };
    const revision = value.revision;
    return {
      ok: true,
      mail: {
        type,
        call,
        outcome,
        ...(typeof revision === 'number' && Number.isSafeInteger(revision) ? { revision } : {}),
      },
    };
  }
  if (type === 'call') {
    const { worker, name, meta, idleTimeoutMs, maxTimeMs } = value;
    if (typeof worker !== 'string' || typeof name !== 'string') {
      return { ok: false, reason: 'call: worker and name must be strings' };
    }
    if (!isDuration(idleTimeoutMs) || !isDuration(maxTimeMs)) {
      return { ok: false, reason: 'call: idleTimeoutMs and maxTimeMs must be positive numbers of ms' };
    }
    const checked = readMeta(meta);
    if (!checked) return { ok: false, reason: 'call: meta must hold agent, run, principal, idempotencyKey and labels' };
    return {
      ok: true,
      mail: { type, call, worker, name, arguments: value.arguments ?? {}, meta: checked, idleTimeoutMs, maxTimeMs },
    };
  }
  return { ok: false, reason: `unknown message type ${JSON.stringify(type)}` };
}

/** A note's body for a call's progress, its message cut to keep it small. */
export function progressNote(call: string, progress: Progress): string {
  const message =
    progress.message === undefined || progress.message.length <= MAX_PROGRESS_MESSAGE
      ? progress.message
      : `${progress.message.slice(0, MAX_PROGRESS_MESSAGE)}…`;
  const note: ProgressNote = {
    type: 'progress',
    call: call.slice(0, 200),
    progress: { ...progress, ...(message === undefined ? {} : { message }) },
  };
  const body = JSON.stringify(note);
  if (Buffer.byteLength(body) <= MAX_NOTE_BYTES) return body;
  const { message: _dropped, ...rest } = note.progress;
  return JSON.stringify({ ...note, progress: rest });
}

/** Reads a note's body as a `ProgressNote`, or undefined if it is not one. */
export function readProgressNote(body: string): ProgressNote | undefined {
  const value = parse(body);
  if (!isRecord(value) || value.type !== 'progress' || typeof value.call !== 'string') return undefined;
  const read = readProgress(isRecord(value.progress) ? value.progress : undefined);
  return read.ok ? { type: 'progress', call: value.call, progress: read.progress } : undefined;
}

function readOutcome(value: unknown): CallOutcome | undefined {
  if (!isRecord(value)) return undefined;
  if (value.type === 'result') return { type: 'result', result: value.result };
  if (value.type === 'cancelled') return { type: 'cancelled' };
  if ((value.type === 'lost' || value.type === 'refused') && typeof value.reason === 'string') {
    return { type: value.type, reason: value.reason };
  }
  return undefined;
}

function readMeta(value: unknown): CallMeta | undefined {
  if (!isRecord(value)) return undefined;
  const { agent, run, principal, idempotencyKey, labels } = value;
  if (
    typeof agent !== 'string' ||
    typeof run !== 'string' ||
    typeof principal !== 'string' ||
    typeof idempotencyKey !== 'string' ||
    !Array.isArray(labels) ||
    !labels.every((label) => typeof label === 'string')
  ) {
    return undefined;
  }
  const trace = readTrace(value.trace);
  const { fencingToken } = value;
  return {
    agent,
    run,
    principal,
    idempotencyKey,
    ...(Number.isSafeInteger(fencingToken) ? { fencingToken: fencingToken as number } : {}),
    labels,
    ...(trace ? { trace } : {}),
  };
}

/** A call's trace context from another node: string fields only, a few and short (else none). */
function readTrace(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  const trace: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate', 'baggage']) {
    const field = value[key];
    if (typeof field === 'string' && field.length <= 1024) trace[key] = field;
  }
  return Object.keys(trace).length ? trace : undefined;
}

function isDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMER_MS;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
