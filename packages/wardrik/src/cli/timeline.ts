import type { Park, StateWrite, StoredRecord } from '../journal/records.js';
import type { RunDetails } from '../runtime/wardrik.js';
import { describeCost, describeLabels, describePark, json, shown } from './describe.js';
import type { HintTarget } from './hint.js';
import { recordInvisibleLines } from './invisible-lines.js';
import { when } from './output.js';
import { callAnsweredLine, callStartedLine, parkAnsweredLine } from './record-lines.js';
import { paint, type Style } from './style.js';

/** How to show a run's timeline. */
export interface TimelineOptions {
  readonly style: Style;
  /** What the commands it prints (to answer an open park) must name. */
  readonly hints?: HintTarget;
}

/**
 * A run as a timeline for people, from its journal: each model step (its text, tokens and cost),
 * each call (tool, arguments, the rule that decided it, its answer or error, labels and cost),
 * parks with who answered what and why (open ones with the commands that answer them), released
 * labels, how it ended, and totals.
 *
 * @example
 * ```ts
 * for (const line of timeline(await client.request('GET', `/v1/runs/${id}`), { style: PLAIN })) print(line)
 * ```
 */
export function timeline(run: RunDetails, options: TimelineOptions): string[] {
  const { style } = options;
  const names = new Map<string, string>();
  const answered = new Set<string>();
  const parks: Park[] = [];
  for (const { record } of run.journal) {
    if (record.type === 'model-step') for (const call of record.toolCalls) names.set(call.callId, call.name);
    if (record.type === 'park-answered' || record.type === 'input-withdrawn') answered.add(record.parkId);
  }
  const ended = run.journal.some(({ record }) => record.type === 'run-ended');
  const lines = [`${paint(style, 'bold', `Run ${run.id} of ${run.agent}:`)} ${describeStatus(run.status, style)}`];
  lines.push(`  Started ${when(run.createdAt)} by ${run.principal}; last change ${when(run.updatedAt)}`);
  if (run.attention !== undefined) lines.push(`  ${paint(style, 'red', 'Needs attention:')} ${shown(run.attention)}`);
  const calls = new Set<string>();
  const failed = new Set<string>();
  let steps = 0;
  for (const stored of run.journal) {
    const record = stored.record;
    switch (record.type) {
      case 'run-started':
        if (record.session !== undefined) {
          const carried = record.labels?.length ? `; carries ${describeLabels(record.labels)} from it` : '';
          lines.push(
            `  Session ${record.session}: ${plural(record.history?.length ?? 0, 'earlier message')} seen${carried}`,
          );
        }
        if (record.parent) lines.push(`  Child run of ${record.parent.runId} (its call ${record.parent.callId})`);
        if (record.labels?.length && record.parent)
          lines.push(`  Carries ${describeLabels(record.labels)} from its parent`);
        lines.push(`  Input: ${json(record.input, 2000)}`);
        break;
      case 'model-step': {
        steps += 1;
        for (const call of record.toolCalls) calls.add(call.callId);
        const cutOff = record.truncated ? ' — cut off at its output token limit' : '';
        const speaker = record.agent === undefined ? '' : `${record.agent}, `;
        const byCallback = record.callback === undefined ? '' : ` — answered by its ${record.callback} callback`;
        lines.push(
          '',
          paint(
            style,
            'bold',
            `Step ${record.step} (${speaker}${record.model}): ${describeCost(record.measures)}${cutOff}${byCallback}`,
          ),
        );
        if (record.tools) lines.push(`  offered: ${record.tools.length ? shown(record.tools.join(', ')) : 'no tools'}`);
        for (const left of record.unavailable ?? []) {
          lines.push(`  left out: toolset ${shown(left.toolset)} (${shown(left.reason)})`);
        }
        if (record.labels?.length) lines.push(`  read from state: ${describeLabels(record.labels)}`);
        if (record.text.trim() !== '') lines.push(`  model: ${shown(record.text).replaceAll('\n', '\n         ')}`);
        break;
      }
      case 'call-started':
        lines.push(callStartedLine(record, style, { rule: true }));
        break;
      case 'call-answered':
        if (record.answer.type === 'error') failed.add(record.callId);
        else failed.delete(record.callId);
        lines.push(
          callAnsweredLine(names.get(record.callId) ?? record.callId, record, style, { rule: true, cost: true }),
        );
        if (record.state?.length) lines.push(`    state: ${record.state.map(describeStateWrite).join('; ')}`);
        break;
      case 'run-parked': {
        parks.push(record.park);
        const open = !answered.has(record.park.id) && !ended;
        lines.push(...describePark(record.park, { style, withoutAnswers: !open, ...hintsOf(options) }));
        if (!answered.has(record.park.id) && ended) lines.push('    closed unanswered when the run ended');
        break;
      }
      case 'input-requested': {
        // A call's question: the run goes on while it waits (it counts as open until answered or withdrawn).
        parks.push(record.park);
        const open = !answered.has(record.park.id) && !ended;
        lines.push(...describePark(record.park, { style, withoutAnswers: !open, ...hintsOf(options) }));
        break;
      }
      case 'input-withdrawn':
        lines.push(`    question ${record.parkId} withdrawn: ${shown(record.reason)}`);
        break;
      case 'park-answered':
        lines.push(parkAnsweredLine(record, style));
        break;
      case 'labels-released':
        lines.push(`  ${shown(record.by)} released ${describeLabels(record.labels)}: ${shown(record.reason)}`);
        break;
      case 'call-changed':
        lines.push(
          `  ${record.callId}: its ${shown(record.by)} callback changed the arguments to ${json(record.arguments, 400)}`,
        );
        break;
      case 'agent-transferred':
        lines.push(
          `  ${paint(style, 'bold', `${record.from} handed the run to ${record.to}`)}${record.reason ? `: ${shown(record.reason)}` : ''}`,
        );
        break;
      case 'child-run-started':
        lines.push(`  ${record.callId}: child run ${record.childRunId} of ${record.agent}`);
        break;
      case 'run-ended':
        lines.push('', endLine(stored, style));
        break;
      default:
        break;
    }
    lines.push(...recordInvisibleLines(record, style));
  }
  if (!ended) {
    const open = parks.filter((park) => !answered.has(park.id)).length;
    lines.push(
      '',
      run.status === 'parked'
        ? paint(style, 'yellow', `Parked: it waits for a person (${plural(open, 'open park')}).`)
        : `${capitalize(run.status)}: the journal so far.`,
    );
  }
  const cost = describeCost(run.measures);
  const failedText = failed.size > 0 ? ` (${failed.size} failed)` : '';
  lines.push(
    `Total: ${plural(steps, 'model step')}, ${plural(calls.size, 'call')}${failedText}, ${plural(parks.length, 'park')}; ${ended ? cost : `${cost} so far`}`,
  );
  lines.push(`Labels: ${describeLabels(run.labels)}`);
  return lines;
}

function describeStateWrite(write: StateWrite): string {
  const labels = write.labels.length ? ` (labels: ${describeLabels(write.labels)})` : '';
  return write.deleted ? `deleted ${shown(write.key)}` : `${shown(write.key)} = ${json(write.value, 120)}${labels}`;
}

function hintsOf(options: TimelineOptions): { hints?: HintTarget } {
  return options.hints === undefined ? {} : { hints: options.hints };
}

function endLine(stored: StoredRecord, style: Style): string {
  const record = stored.record;
  if (record.type !== 'run-ended') return '';
  if (record.status === 'completed') return `${paint(style, 'green', 'Completed:')} ${shown(record.output ?? '')}`;
  return `${paint(style, 'red', `${capitalize(record.status)}:`)} ${shown(record.error ?? 'no reason given')}`;
}

function describeStatus(status: string, style: Style): string {
  if (status === 'completed') return paint(style, 'green', status);
  if (status === 'parked') return paint(style, 'yellow', status);
  if (status === 'failed' || status === 'cancelled') return paint(style, 'red', status);
  return status;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
