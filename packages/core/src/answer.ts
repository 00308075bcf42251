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
  return brand({
    type: 'ok',
    value,
    ...report(options),
  });
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
