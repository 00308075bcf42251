import { type Label, type Measures, revealInvisible } from '@wardrik/core';
import type { Park, ParkDecision } from '../journal/records.js';
import { commandHint, type HintTarget } from './hint.js';
import { invisibleLines } from './invisible-lines.js';
import { clip } from './output.js';
import { mark, paint, type Style, SYMBOLS_ONLY } from './style.js';

/**
 * A value as JSON on one line, cut to `max` characters, invisible characters written out
 * (`"R1⟨U+202E⟩abc123"`, not `"R1,"321cba`).
 */
export function json(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(revealInvisible(text), max);
}

/**
 * Text someone wrote (a model, a tool, a person), as the CLI shows it: invisible characters
 * written out as `⟨U+202E⟩`, terminal escapes and carriage returns among them.
 */
export function shown(text: string): string {
  return revealInvisible(text);
}

/** A call for people: `refund({"order_id":"A1","amount":250})`. */
export function describeCall(name: string, args: unknown): string {
  return `${shown(name)}(${json(args, 160)})`;
}

/**
 * What a run cost, for people: `0.006 usd, 45 tokens (30 in, 15 out)`, then any other unit.
 *
 * @example
 * ```ts
 * describeCost({ usd: 0.006, inputTokens: 30, outputTokens: 15 }) // '0.006 usd, 45 tokens (30 in, 15 out)'
 * ```
 */
export function describeCost(measures: Measures): string {
  const { usd, inputTokens, outputTokens, cachedInputTokens, cacheWriteInputTokens, ...others } = measures;
  const parts: string[] = [];
  if (usd !== undefined) parts.push(`${round(usd)} usd`);
  if (inputTokens !== undefined || outputTokens !== undefined) {
    const input = inputTokens ?? 0;
    const output = outputTokens ?? 0;
    const cached = cachedInputTokens ? `, ${cachedInputTokens} cached` : '';
    const written = cacheWriteInputTokens ? `, ${cacheWriteInputTokens} written to the cache` : '';
    parts.push(`${input + output} tokens (${input} in, ${output} out${cached}${written})`);
  }
  for (const [unit, amount] of Object.entries(others)) parts.push(`${round(amount)} ${unit}`);
  return parts.length ? parts.join(', ') : 'nothing measured';
}

/** What a run cost, in a few characters for tables: `0.006 usd, 45 tokens`. */
export function describeCostShort(measures: Measures): string {
  const parts: string[] = [];
  if (measures['usd'] !== undefined) parts.push(`${round(measures['usd'])} usd`);
  const tokens = (measures['inputTokens'] ?? 0) + (measures['outputTokens'] ?? 0);
  if (tokens > 0) parts.push(`${tokens} tokens`);
  return parts.join(', ') || '-';
}

/** Labels for people: `outside`, or `none`. */
export function describeLabels(labels: readonly Label[]): string {
  return labels.length ? shown(labels.join(', ')) : 'none';
}

/** A person's decision for people: `approve (run the call)`, `deny: too much`… */
export function describeDecision(decision: ParkDecision): string {
  return shown(decisionWords(decision));
}

function decisionWords(decision: ParkDecision): string {
  switch (decision.type) {
    case 'retry':
      return `approve (run the call)${decision.note ? `: ${decision.note}` : ''}`;
    case 'fail':
      return `deny${decision.reason ? `: ${decision.reason}` : ''}`;
    case 'answer':
      return `it ran, returning ${json(decision.value)}`;
    case 'raise-budget':
      return `raise the budget to ${json(decision.budget)}`;
    case 'stop':
      return `stop the run${decision.reason ? `: ${decision.reason}` : ''}`;
    case 'approve':
      return `approve (run the call as shown)${decision.remember ? `, and allow it for this ${decision.remember}` : ''}${decision.note ? `: ${decision.note}` : ''}`;
    case 'deny':
      return `deny${decision.reason ? `: ${decision.reason}` : ''}`;
    case 'edit':
      return `edit: run it with ${json(decision.arguments)}${decision.note ? ` (${decision.note})` : ''}`;
  }
}

/** The commands that answer a park of this kind, for people to copy (naming the server when needed). */
export function answerCommands(park: Pick<Park, 'id' | 'kind'>, target: HintTarget = {}): string[] {
  const answer = (words: string, comment?: string) => commandHint(`answer ${park.id} ${words}`, target, comment);
  switch (park.kind) {
    case 'budget':
      return [answer('raise-budget --usd N', '(or --tokens N, --steps N)'), answer('stop')];
    case 'in_doubt':
      return [
        answer(`ran --value '<what it returned, as JSON>'`, '(it ran)'),
        answer('approve', '(it did not run: run it now)'),
        answer(`deny --reason '…'`),
      ];
    case 'approval':
      return [
        answer('approve', '(run it as shown; add --remember run|agent to stop asking)'),
        answer(`edit --args '<the arguments to use, as JSON>'`),
        answer(`deny --reason '…'`),
      ];
    case 'input':
      return [
        answer(`ran --value '<the fields it asks for, as a JSON object>'`, '(a URL question: --value {})'),
        answer(`deny --reason '…'`, '(decline)'),
        answer('stop', '(dismiss the question; the run goes on)'),
      ];
    case 'authorize':
      return [answer('approve', '(once signed in at the URL shown)'), answer('stop', '(end the run)')];
    default:
      return [answer('approve'), answer(`deny --reason '…'`)];
  }
}

/** How to show a park: indented, in a style, with answer commands that name the server. */
export interface ParkLinesOptions {
  readonly indent?: string;
  readonly style?: Style;
  readonly hints?: HintTarget;
  /** Leave out the commands that answer it (an answered or closed park). Default false. */
  readonly withoutAnswers?: boolean;
}

/**
 * A park in a few lines for people: why it waits, the call it holds, how to answer it; flagged
 * when it holds invisible characters (written out as `⟨U+202E⟩`).
 */
export function describePark(park: Park, options: ParkLinesOptions = {}): string[] {
  const { indent = '  ', style = SYMBOLS_ONLY } = options;
  const head = `${mark(style, 'park')}${park.kind}${park.rule ? ` (rule ${shown(park.rule)})` : ''}: ${shown(park.reason)}`;
  const lines = [`${indent}${paint(style, 'yellow', head)}`, ...invisibleLines(park, style, `${indent}  `)];
  const held = park.call ? ` holds ${describeCall(park.call.name, park.call.arguments)}` : '';
  lines.push(`${indent}  park ${park.id}${held}`);
  lines.push(...questionLines(park, indent));
  if (park.labels.length) lines.push(`${indent}  the run carries: ${describeLabels(park.labels)}`);
  if (options.withoutAnswers) return lines;
  answerCommands(park, options.hints).forEach((command, index) => {
    lines.push(`${indent}  ${index === 0 ? 'answer with:' : '         or:'} ${command}`);
  });
  return lines;
}

function round(value: number): string {
  return String(Math.round(value * 1e6) / 1e6);
}

/** What an `input` park asks (its fields, or the URL to open) and where an `authorize` park signs in. */
function questionLines(park: Park, indent: string): string[] {
  const details = (typeof park.details === 'object' && park.details !== null ? park.details : {}) as Record<
    string,
    unknown
  >;
  if (park.kind === 'authorize' && typeof details.url === 'string')
    return [`${indent}  sign in at: ${shown(details.url)}`];
  if (park.kind !== 'input') return [];
  if (details.mode === 'url' && typeof details.url === 'string') {
    return [`${indent}  the person opens (Wardrik never does): ${shown(details.url)}`];
  }
  const schema = details.schema as { properties?: Record<string, unknown>; required?: unknown } | undefined;
  const fields = Object.keys(schema?.properties ?? {});
  return fields.length ? [`${indent}  fields asked for: ${json(schema, 400)}`] : [];
}
