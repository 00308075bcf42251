import type { Park, ParkDecision, ParkKind } from '../journal/records.js';
import {
  checkDecisionName,
  DECISION_OPTIONS,
  type DecisionName,
  decisionForPark,
  decisionNamed,
  decisionsFor,
} from './answer-decision.js';
import { CliError } from './cli-error.js';
import { type Command, parseCommand } from './command.js';
import { splitWords } from './words.js';

/**
 * The decisions `wardrik chat` offers in place for each kind of park, as people type them. Every
 * decision `wardrik answer` takes for that kind is accepted too (see answer-decision.ts).
 */
const CHOICES: Partial<Record<ParkKind, string>> = {
  approval: 'approve [--remember run|agent]  ·  deny [REASON]  ·  edit ARGUMENTS-JSON',
  in_doubt: 'ran VALUE-JSON (it ran and returned this)  ·  retry (it did not run: run it now)  ·  fail [REASON]',
  tool: 'approve (run it again, approved)  ·  answer VALUE-JSON (its answer)  ·  fail [REASON]',
  budget: 'raise-budget --usd N | --tokens N | --steps N  ·  stop [REASON]',
};

/** How each decision is typed, for a kind of park not listed above. */
const TYPED: Record<DecisionName, string> = {
  approve: 'approve',
  deny: 'deny [REASON]',
  edit: 'edit ARGUMENTS-JSON',
  ran: 'ran VALUE-JSON',
  retry: 'retry',
  fail: 'fail [REASON]',
  'raise-budget': 'raise-budget --usd N | --tokens N | --steps N',
  stop: 'stop [REASON]',
};

/** The option the free text after a decision fills: `deny too much` is `deny --reason 'too much'`. */
const FREE_TEXT: Partial<Record<DecisionName, string>> = {
  approve: 'note',
  retry: 'note',
  deny: 'reason',
  fail: 'reason',
  stop: 'reason',
  edit: 'args',
  ran: 'value',
};

/** What a park's answer line may hold, parsed as `wardrik answer`'s options are. */
const ANSWER_LINE: Command = {
  name: 'chat',
  summary: 'an answer to a park, typed in place',
  usage: '',
  options: DECISION_OPTIONS,
  run: () => Promise.resolve(0),
};

/** The line that says how to answer a park of `kind` in place. */
export function parkChoices(kind: ParkKind): string {
  return (
    CHOICES[kind] ??
    decisionsFor(kind)
      .map((name) => TYPED[name])
      .join('  ·  ')
  );
}

/** What a typed answer means: the decision to send, or why it can't be sent (ask again). */
export type TypedAnswer =
  | { readonly type: 'decision'; readonly decision: ParkDecision }
  | { readonly type: 'invalid'; readonly message: string };

/**
 * Reads a person's answer to a park, typed in place: a decision, then either free text
 * (`deny too much`, `edit {"amount":100}`, `ran "done"`) or `wardrik answer`'s options
 * (`deny --reason 'too much'`, `raise-budget --usd 2`). The decision must be one the park's kind
 * takes; the rest is checked as `wardrik answer` checks it.
 *
 * @example
 * ```ts
 * parseParkAnswer('deny not today', park) // { type: 'decision', decision: { type: 'deny', reason: 'not today' } }
 * ```
 */
export function parseParkAnswer(line: string, park: Pick<Park, 'id' | 'kind'>): TypedAnswer {
  const text = line.trim();
  const first = /^\S+/.exec(text)?.[0] ?? '';
  const rest = text.slice(first.length).trim();
  const typed = first.toLowerCase();
  const name = decisionNamed(typed) as DecisionName;
  const accepted = decisionsFor(park.kind);
  if (!accepted.includes(name)) {
    const said = first === '' ? 'say' : `${JSON.stringify(first)} is not an answer here; say`;
    return { type: 'invalid', message: `${said} one of: ${parkChoices(park.kind)}` };
  }
  let args: string[];
  if (rest === '' || rest.startsWith('--')) {
    try {
      args = splitWords(rest);
    } catch (thrown) {
      return { type: 'invalid', message: (thrown as Error).message };
    }
  } else {
    const option = FREE_TEXT[name];
    if (option === undefined) return { type: 'invalid', message: `${name} takes ${parkChoices(park.kind)}` };
    args = [`--${option}`, rest];
  }
  if ((name === 'edit' || name === 'ran') && args.length === 0) {
    const what = name === 'edit' ? 'the arguments to run it with' : 'what the call returned';
    return { type: 'invalid', message: `${typed} needs ${what}, as JSON: e.g. ${typed} {"amount":100}` };
  }
  try {
    const parsed = parseCommand(ANSWER_LINE, args);
    if (parsed.positionals.length > 0) {
      return { type: 'invalid', message: `unexpected ${JSON.stringify(parsed.positionals.join(' '))}` };
    }
    checkDecisionName(ANSWER_LINE, name, parsed);
    return { type: 'decision', decision: decisionForPark(ANSWER_LINE, name, parsed, park, []) };
  } catch (thrown) {
    if (thrown instanceof CliError) return { type: 'invalid', message: thrown.message };
    throw thrown;
  }
}
