import type { Budget, ParkDecision, ParkKind } from '../journal/records.js';
import { usageError } from './cli-error.js';
import { type Command, numberOption, type Options, type Parsed, stringOption } from './command.js';
import { json } from './describe.js';

/** The decisions `wardrik answer` takes, as a person names them. */
export const DECISIONS = ['approve', 'deny', 'edit', 'ran', 'retry', 'fail', 'raise-budget', 'stop'] as const;

/** A decision's name on the command line. */
export type DecisionName = (typeof DECISIONS)[number];

/**
 * Other names a person may give a decision: the API's (`answer`) as well as the CLI's (`ran`), so
 * one vocabulary works everywhere (the runtime takes `approve` and `deny` on tool and in-doubt
 * parks in turn).
 */
export const DECISION_ALIASES: Readonly<Record<string, DecisionName>> = {
  answer: 'ran',
  raise: 'raise-budget',
};

/** The decision a name means (an alias resolved), or the name as given. */
export function decisionNamed(name: string): string {
  return DECISION_ALIASES[name] ?? name;
}

/** Which options each decision takes. */
const TAKES: Record<DecisionName, readonly string[]> = {
  approve: ['note', 'remember', 'previous-holder-stopped'],
  deny: ['reason'],
  edit: ['args', 'note'],
  ran: ['value'],
  retry: ['note', 'previous-holder-stopped'],
  fail: ['reason'],
  'raise-budget': ['usd', 'tokens', 'steps'],
  stop: ['reason'],
};

const OPTIONS = [
  'reason',
  'note',
  'value',
  'usd',
  'tokens',
  'steps',
  'args',
  'remember',
  'previous-holder-stopped',
] as const;

/** Options that are flags: `--previous-holder-stopped` (a retry of a call another node may still finish). */
const FLAGS: ReadonlySet<string> = new Set(['previous-holder-stopped']);

/** The options a decision takes, as node:util parseArgs takes them. */
export const DECISION_OPTIONS: Options = Object.fromEntries(
  OPTIONS.map((option) => [option, { type: FLAGS.has(option) ? 'boolean' : 'string' }]),
);

/**
 * The decisions a park of each kind takes, as named on the command line. For tool and in_doubt
 * parks, `approve` means retry (run the call; in doubt: it did not run) and `deny` means fail; the
 * runtime's own list is in runtime/park-decision.ts (a test checks that they agree).
 */
const ACCEPTED: Record<ParkKind, readonly DecisionName[]> = {
  tool: ['approve', 'deny', 'ran', 'retry', 'fail'],
  in_doubt: ['approve', 'deny', 'ran', 'retry', 'fail'],
  approval: ['approve', 'deny', 'edit', 'ran', 'retry', 'fail'],
  budget: ['raise-budget', 'stop'],
  // The work a long-running tool started: its result (`ran --value`), or that it failed.
  external: ['ran', 'fail'],
  // A call's question: what the person filled in (`ran --value`), declined (`deny`) or dismissed (`stop`).
  input: ['ran', 'deny', 'stop'],
  // A sign-in to an MCP server: done (`retry`, or `approve`), or end the run (`stop`).
  authorize: ['retry', 'approve', 'stop'],
};

/** The decisions a park of `kind` takes, as named on the command line. */
export function decisionsFor(kind: ParkKind): readonly DecisionName[] {
  return ACCEPTED[kind];
}

/** Checks that `name` is a decision and that the options given go with it (usage errors). */
export function checkDecisionName(command: Command, name: string, parsed: Parsed): DecisionName {
  if (!(DECISIONS as readonly string[]).includes(name)) {
    throw usageError(
      `unknown decision ${JSON.stringify(name)}; expected one of ${DECISIONS.join(', ')}`,
      command.usage,
    );
  }
  const decision = name as DecisionName;
  for (const option of OPTIONS) {
    if (parsed.values[option] !== undefined && !TAKES[decision].includes(option)) {
      throw usageError(`--${option} does not go with ${name}`, command.usage);
    }
  }
  // Usage errors in the decision's options come before the server is asked anything.
  const kind: ParkKind =
    decision === 'raise-budget' || decision === 'stop'
      ? 'budget'
      : parsed.values['previous-holder-stopped'] === true
        ? 'in_doubt'
        : 'approval';
  decisionFor(command, decision, parsed, kind);
  return decision;
}

/**
 * The decision to send for a park of `kind`, or a usage error that says which decisions that park
 * takes (`answerWith` lists the commands that answer it).
 */
export function decisionForPark(
  command: Command,
  name: DecisionName,
  parsed: Parsed,
  park: { readonly id: string; readonly kind: ParkKind },
  answerWith: readonly string[],
): ParkDecision {
  const accepted = ACCEPTED[park.kind];
  if (!accepted.includes(name)) {
    throw usageError(
      `park ${park.id} is ${article(park.kind)} ${park.kind} park: it takes ${list(accepted)}, not ${name}. Answer it with:\n${answerWith.map((line) => `  ${line}`).join('\n')}`,
      command.usage,
    );
  }
  return decisionFor(command, name, parsed, park.kind);
}

/** The decision a person named, for a park of `kind` (which must take it). */
function decisionFor(command: Command, decision: DecisionName, parsed: Parsed, kind: ParkKind): ParkDecision {
  const approval = kind === 'approval';
  const reason = stringOption(parsed, 'reason');
  const note = stringOption(parsed, 'note');
  const remember = stringOption(parsed, 'remember');
  if (remember !== undefined && remember !== 'run' && remember !== 'agent') {
    throw usageError(`--remember takes run or agent, not ${JSON.stringify(remember)}`, command.usage);
  }
  if (remember !== undefined && !approval)
    throw usageError('--remember goes only with an approval park', command.usage);
  const stopped = parsed.values['previous-holder-stopped'] === true;
  if (stopped && (approval || kind === 'budget' || kind === 'external')) {
    throw usageError('--previous-holder-stopped goes only with retrying an in_doubt call', command.usage);
  }
  const retry: ParkDecision = {
    type: 'retry',
    ...(note === undefined ? {} : { note }),
    ...(stopped ? { previousHolderStopped: true as const } : {}),
  };
  switch (decision) {
    case 'approve':
      if (approval) {
        return {
          type: 'approve',
          ...(note === undefined ? {} : { note }),
          ...(remember === undefined ? {} : { remember }),
        };
      }
      return retry;
    case 'retry':
      return retry;
    case 'deny':
      if (approval || kind === 'input') return reason === undefined ? { type: 'deny' } : { type: 'deny', reason };
      return { type: 'fail', reason: reason ?? 'a person declined' };
    case 'edit':
      return { type: 'edit', arguments: argumentsFrom(command, parsed), ...(note === undefined ? {} : { note }) };
    case 'fail':
      return reason === undefined ? { type: 'fail' } : { type: 'fail', reason };
    case 'stop':
      return reason === undefined ? { type: 'stop' } : { type: 'stop', reason };
    case 'ran':
      return { type: 'answer', value: valueFrom(command, parsed) };
    case 'raise-budget':
      return { type: 'raise-budget', budget: budgetFrom(command, parsed) };
  }
}

function argumentsFrom(command: Command, parsed: Parsed): Record<string, unknown> {
  const text = stringOption(parsed, 'args');
  if (text === undefined) throw usageError(`edit needs --args JSON, e.g. --args '{"amount":100}'`, command.usage);
  let edited: unknown;
  try {
    edited = JSON.parse(text);
  } catch (cause) {
    throw usageError(`--args is not JSON: ${(cause as Error).message}`, command.usage);
  }
  if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) {
    throw usageError('--args must be a JSON object of arguments', command.usage);
  }
  return edited as Record<string, unknown>;
}

function valueFrom(command: Command, parsed: Parsed): unknown {
  const text = stringOption(parsed, 'value');
  if (text === undefined) {
    throw usageError(`ran needs --value JSON: what the call returned, e.g. --value '{"refunded":250}'`, command.usage);
  }
  try {
    return JSON.parse(text);
  } catch (thrown) {
    throw usageError(
      `--value is not JSON (${(thrown as Error).message}); quote text as JSON, e.g. --value '"done"'. Got ${json(text, 80)}`,
      command.usage,
    );
  }
}

function budgetFrom(command: Command, parsed: Parsed): Budget {
  const positiveInteger = (value: number) => Number.isInteger(value) && value > 0;
  const usd = numberOption(command, parsed, 'usd', 'a positive number', (value) => value > 0);
  const tokens = numberOption(command, parsed, 'tokens', 'a positive integer', positiveInteger);
  const steps = numberOption(command, parsed, 'steps', 'a positive integer', positiveInteger);
  if (usd === undefined && tokens === undefined && steps === undefined) {
    throw usageError('raise-budget needs --usd N, --tokens N or --steps N (the new limits)', command.usage);
  }
  return {
    ...(usd === undefined ? {} : { usd }),
    ...(tokens === undefined ? {} : { tokens }),
    ...(steps === undefined ? {} : { steps }),
  };
}

/** `a, b or c`. */
function list(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

function article(kind: ParkKind): string {
  return kind === 'approval' || kind === 'in_doubt' ? 'an' : 'a';
}
