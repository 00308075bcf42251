import { checkLabel, type Label, mergeLabels } from './labels.js';
import { checkMeasure, type Measures } from './measures.js';

const answerBrand = Symbol.for('wardrik.answer');

/** One problem with a call's arguments: where (`path`, empty for the whole object) and what. */
export interface Issue {
  readonly path: string;
  readonly message: string;
}

interface Reported {
  /** What the call cost, by unit, including what was reported before a failure. */
  readonly measures: Measures;
  /** Labels the answer carries, e.g. `outside`. */
  readonly labels: Label[];
}

/** The tool did its work; `value` goes back to the model. */
export interface OkAnswer extends Reported {
  readonly type: 'ok';
  readonly value: unknown;
}

/** The tool failed; `reason` goes back to the model so it can correct itself. */
export interface ErrorAnswer extends Reported {
  readonly type: 'error';
  readonly reason: string;
  /** For arguments that did not match the schema: every problem found. */
  readonly issues?: Issue[];
  /**
   * What kind of failure, when Wardrik knows: `thrown` (the tool threw), `unknown_tool`,
   * `invalid_arguments`, `timeout`, `retries_exhausted`, `declined`, … Absent for an `error()` the tool returned.
   */
  readonly code?: string;
}

/** The tool needs a person; the run waits for one. */
export interface ParkAnswer extends Reported {
  readonly type: 'park';
  readonly reason: string;
  /** Anything the person answering should see. */
  readonly details?: unknown;
  /**
   * Set by `started`: the tool began work that finishes later, outside the run. The run waits
   * (a park of kind `external`) until the result arrives.
   */
  readonly external?: ExternalWork;
}

/** Work a long-running tool started: the handle the result will name, and how long to wait for it. */
export interface ExternalWork {
  /** The tool's own id for the work (a job id, a ticket): the result names it. 1–256 characters. */
  readonly handle: string;
  /** Stop waiting after this many ms: the model is told the work did not finish in time. */
  readonly deadlineMs?: number;
}

/** What a tool call answers. */
export type Answer = OkAnswer | ErrorAnswer | ParkAnswer;

/** What a call reported besides its value. */
export interface ReportOptions {
  readonly labels?: readonly Label[];
  readonly measures?: Measures;
}

/** The measures and labels an answer carries, checked: one NaN cost would poison every sum it joins. */
function report(options: ReportOptions): Reported {
  const measures: Measures = { ...options.measures };
  for (const unit in measures) checkMeasure(unit, measures[unit]);
  if (options.labels) for (const label of options.labels) checkLabel(label);
  return { measures, labels: mergeLabels(options.labels) };
}

function brand<T extends Answer>(answer: T): T {
  Object.defineProperty(answer, answerBrand, { value: true, enumerable: false });
  return answer;
}

/**
 * An ok answer.
 *
 * @example
 * ```ts
 * run: async ({ url }) => ok(await fetchPage(url), { labels: ['outside'] })
 * ```
 */
export function ok(value: unknown, options: ReportOptions = {}): OkAnswer {
  const { measures, labels } = report(options);
  return brand({ type: 'ok', value, measures, labels });
}

/**
 * An error answer. The model reads `reason`.
 *
 * @example
 * ```ts
 * run: ({ id }) => (orders.has(id) ? orders.get(id) : error(`no order ${id}`))
 * ```
 */
export function error(
  reason: unknown,
  options: ReportOptions & { readonly issues?: Issue[]; readonly code?: string } = {},
): ErrorAnswer {
  return brand({
    type: 'error',
    reason: describeReason(reason),
    ...report(options),
    ...(options.issues ? { issues: options.issues } : {}),
    ...(options.code ? { code: options.code } : {}),
  });
}

/**
 * A park answer: the run waits for a person, who sees `reason` (and `details`).
 *
 * @example
 * ```ts
 * run: ({ amount }) => (amount > 500 ? park('refund over 500 needs a manager') : refund(amount))
 * ```
 */
export function park(reason: unknown, options: ReportOptions & { readonly details?: unknown } = {}): ParkAnswer {
  const answer: ParkAnswer = {
    type: 'park',
    reason: describeReason(reason),
    ...report(options),
  };
  return brand(options.details === undefined ? answer : { ...answer, details: options.details });
}

/**
 * The answer of a long-running tool (ADK's `is_long_running`): it started work that finishes
 * later, outside the run, and the run waits for the result, holding no memory — across restarts,
 * on any node. The result arrives through `wardrik.completeExternal(handle, …)` (the tool's own
 * completion callback, a webhook), or by answering the park (`POST /v1/parks/{id}/answer`,
 * `wardrik answer`). Labels given here are carried by the result when it comes.
 *
 * @example
 * ```ts
 * run: async ({ document }, context) => {
 *   const job = await translator.submit(document, { idempotencyKey: context.idempotencyKey })
 *   return started(`translating ${document}`, { handle: job.id, deadlineMs: 3_600_000, labels: ['outside'] })
 * }
 * // later, in the translator's webhook:
 * await wardrik.completeExternal(job.id, { value: { translated: url } })
 * ```
 */
export function started(
  reason: unknown,
  options: ReportOptions & { readonly handle: string; readonly deadlineMs?: number; readonly details?: unknown },
): ParkAnswer {
  const { handle, deadlineMs } = options;
  if (typeof handle !== 'string' || handle.length === 0 || handle.length > 256) {
    throw new TypeError(`started: handle must be a string of 1–256 characters, got ${JSON.stringify(handle)}`);
  }
  if (deadlineMs !== undefined && !(typeof deadlineMs === 'number' && Number.isFinite(deadlineMs) && deadlineMs > 0)) {
    throw new TypeError(`started: deadlineMs must be a positive number of ms, got ${String(deadlineMs)}`);
  }
  const answer = park(reason, options);
  return brand({ ...answer, external: deadlineMs === undefined ? { handle } : { handle, deadlineMs } });
}

/** Whether `value` was made by `ok`, `error` or `park` (rather than being a plain value). */
export function isAnswer(value: unknown): value is Answer {
  return typeof value === 'object' && value !== null && answerBrand in value;
}

/** Adds measures and labels to an answer, returning a new answer of the same type. */
export function withReport<T extends Answer>(answer: T, measures: Measures, labels: readonly Label[]): T {
  const merged = { ...answer, measures, labels: mergeLabels(answer.labels, labels) };
  return brand(merged);
}

/** Turns anything thrown or given as a reason into a message a model can read. */
export function describeReason(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) return reason.message || reason.name;
  if (reason === undefined) return 'unknown error';
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}
