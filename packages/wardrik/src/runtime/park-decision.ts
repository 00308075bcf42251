import { exceedsDepth, MAX_JSON_DEPTH } from '@wardrik/core';
import { checkBudget } from '../agent.js';
import { InvalidParkAnswerError } from '../errors.js';
import type { ParkDecision, ParkKind } from '../journal/records.js';

const allowed: Record<ParkKind, readonly ParkDecision['type'][]> = {
  tool: ['answer', 'retry', 'fail'],
  in_doubt: ['answer', 'retry', 'fail'],
  approval: ['approve', 'deny', 'edit', 'answer', 'retry', 'fail'],
  budget: ['raise-budget', 'stop'],
  external: ['answer', 'fail'],
  // A call's question to a person: accept (what they filled in), decline, or cancel the question.
  input: ['answer', 'deny', 'stop'],
  // A person signed in to a remote MCP server (go on), or ends the run.
  authorize: ['retry', 'stop'],
};

/**
 * One vocabulary for every park: on a `tool` or `in_doubt` park, `approve` means `retry` (run the
 * call) and `deny` means `fail` (the model is told), as they do in the CLI and the console.
 */
const SAME_AS: Partial<Record<ParkKind, Readonly<Record<string, 'retry' | 'fail'>>>> = {
  tool: { approve: 'retry', deny: 'fail' },
  in_doubt: { approve: 'retry', deny: 'fail' },
  authorize: { approve: 'retry' },
};

/**
 * Checks a person's decision for a park of `kind`, naming what is wrong: an unknown type, a
 * type not allowed for this kind, or a malformed field. `approve` and `deny` on a tool or in-doubt
 * park are taken as `retry` and `fail` (their `note` and `reason` kept).
 */
export function checkDecision(kind: ParkKind, decision: unknown): ParkDecision {
  const choices = allowed[kind];
  if (typeof decision !== 'object' || decision === null || Array.isArray(decision)) {
    throw new InvalidParkAnswerError(`decision: expected an object such as { type: '${choices[0]}' }`);
  }
  const alias = SAME_AS[kind]?.[String((decision as { type?: unknown }).type)];
  if (alias !== undefined) {
    const { remember, ...rest } = decision as Record<string, unknown>;
    if (remember !== undefined) {
      throw new InvalidParkAnswerError(
        `decision.remember: goes only with approving an approval park, not a ${kind} park`,
      );
    }
    return checkDecision(kind, { ...rest, type: alias });
  }
  const { type } = decision as { type?: unknown };
  if (typeof type !== 'string' || !choices.includes(type as ParkDecision['type'])) {
    const aliases = Object.keys(SAME_AS[kind] ?? {});
    throw new InvalidParkAnswerError(
      `decision.type: a ${kind} park takes one of ${[...choices, ...aliases].join(', ')}; got ${JSON.stringify(type)}`,
    );
  }
  return CHECKS[type as ParkDecision['type']](decision as Record<string, unknown>);
}

type Fields = Record<string, unknown>;

/** Each type of decision's fields, checked: the decision as the journal keeps it, or an error naming the field. */
const CHECKS: Readonly<Record<ParkDecision['type'], (fields: Fields) => ParkDecision>> = {
  answer: (fields) => {
    if (!('value' in fields)) {
      throw new InvalidParkAnswerError(`decision.value: required for 'answer' (the call's answer)`);
    }
    return { type: 'answer', value: plainJson(fields.value, 'decision.value') };
  },
  retry: (fields) => {
    checkOptionalString(fields.note, 'decision.note');
    const stopped = fields.previousHolderStopped;
    if (stopped !== undefined && stopped !== true) {
      throw new InvalidParkAnswerError(
        `decision.previousHolderStopped: expected true (you checked the node that started the call has stopped), got ${JSON.stringify(stopped)}`,
      );
    }
    return {
      type: 'retry',
      ...(fields.note === undefined ? {} : { note: fields.note as string }),
      ...(stopped ? { previousHolderStopped: true as const } : {}),
    };
  },
  approve: (fields) => {
    checkOptionalString(fields.note, 'decision.note');
    const remember = fields.remember;
    if (remember !== undefined && remember !== 'run' && remember !== 'agent') {
      throw new InvalidParkAnswerError(`decision.remember: expected 'run' or 'agent', got ${JSON.stringify(remember)}`);
    }
    return {
      type: 'approve',
      ...(fields.note === undefined ? {} : { note: fields.note as string }),
      ...(remember === undefined ? {} : { remember }),
    };
  },
  edit: (fields) => {
    const edited = fields.arguments;
    if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) {
      throw new InvalidParkAnswerError('decision.arguments: expected the edited arguments as an object');
    }
    checkOptionalString(fields.note, 'decision.note');
    return {
      type: 'edit',
      arguments: plainJson(edited, 'decision.arguments') as Record<string, unknown>,
      ...(fields.note === undefined ? {} : { note: fields.note as string }),
    };
  },
  fail: (fields) => withReason('fail', fields),
  deny: (fields) => withReason('deny', fields),
  stop: (fields) => withReason('stop', fields),
  'raise-budget': (fields) => {
    try {
      const budget = checkBudget(fields.budget, 'decision.budget');
      if (Object.keys(budget).length === 0) throw new Error('decision.budget: give at least one of usd, tokens, steps');
      return { type: 'raise-budget', budget };
    } catch (cause) {
      throw new InvalidParkAnswerError((cause as Error).message, { cause });
    }
  },
};

/** A `fail`, `deny` or `stop`, with its reason if one is given. */
function withReason(type: 'fail' | 'deny' | 'stop', fields: Fields): ParkDecision {
  checkOptionalString(fields.reason, 'decision.reason');
  return fields.reason === undefined ? { type } : { type, reason: fields.reason as string };
}

/**
 * A person's value as the journal will keep it: plain JSON (so a resumed run sees what this one
 * does), nested at most `MAX_JSON_DEPTH` levels.
 */
function plainJson(value: unknown, where: string): unknown {
  if (exceedsDepth(value, MAX_JSON_DEPTH)) {
    throw new InvalidParkAnswerError(`${where}: nests deeper than ${MAX_JSON_DEPTH} levels, the most accepted`);
  }
  try {
    const json = JSON.stringify(value);
    return json === undefined ? null : JSON.parse(json);
  } catch (cause) {
    throw new InvalidParkAnswerError(`${where}: expected JSON data (${(cause as Error).message})`, { cause });
  }
}

function checkOptionalString(value: unknown, where: string): void {
  if (value !== undefined && typeof value !== 'string') {
    throw new InvalidParkAnswerError(`${where}: expected a string, got ${typeof value}`);
  }
}
