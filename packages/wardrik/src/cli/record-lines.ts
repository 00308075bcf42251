import type { CallAnsweredRecord, CallStartedRecord, ParkAnsweredRecord } from '../journal/records.js';
import { describeCall, describeCost, describeDecision, describeLabels, json, shown } from './describe.js';
import { mark, paint, type Style } from './style.js';

/** What else a call's line tells, beyond the call: `show` tells all, a live run less. */
export interface CallLineOptions {
  /** Name the policy rule that decided the call. Default false. */
  readonly rule?: boolean;
  /** Say what the call itself cost (its measures). Default false. */
  readonly cost?: boolean;
}

/** A call about to run: `→ refund({"order_id":"A1"})  (try 2)  [rule approved]`. */
export function callStartedLine(record: CallStartedRecord, style: Style, options: CallLineOptions = {}): string {
  const tries = record.attempt > 1 ? `  (try ${record.attempt})` : '';
  const rule = options.rule && record.rule ? `  [rule ${shown(record.rule)}]` : '';
  return `  ${paint(style, 'cyan', mark(style, 'call'))}${describeCall(record.name, record.arguments)}${tries}${rule}`;
}

/**
 * A call's answer, named by its tool (`name`): `← refund: {"refunded":250}  [labels: outside]`,
 * `← wipe failed: Refused by policy (no-wipes): …  [rule no-wipes]`, `← refund parked: …`.
 */
export function callAnsweredLine(
  name: string,
  record: CallAnsweredRecord,
  style: Style,
  options: CallLineOptions = {},
): string {
  const answer = record.answer;
  const extras = [
    answer.labels.length ? `[labels: ${describeLabels(answer.labels)}]` : '',
    options.rule && record.rule ? `[rule ${shown(record.rule)}]` : '',
    options.cost && Object.keys(answer.measures ?? {}).length > 0 ? `(cost: ${describeCost(answer.measures)})` : '',
  ].filter(Boolean);
  const suffix = extras.length ? `  ${extras.join(' ')}` : '';
  const arrow = mark(style, 'answer');
  if (answer.type === 'ok') return `  ${paint(style, 'green', arrow)}${shown(name)}: ${json(answer.value)}${suffix}`;
  if (answer.type === 'error') {
    return `  ${paint(style, 'red', `${arrow}${shown(name)} failed:`)} ${shown(answer.reason)}${suffix}`;
  }
  return `  ${paint(style, 'yellow', `${arrow}${shown(name)} parked:`)} ${shown(answer.reason)}${suffix}`;
}

/** A person's answer to a park: `▶ alice answered park_1: deny: too much`. */
export function parkAnsweredLine(record: ParkAnsweredRecord, style: Style): string {
  return `  ${paint(style, 'magenta', mark(style, 'answered'))}${shown(record.by)} answered ${record.parkId}: ${describeDecision(record.decision)}`;
}
