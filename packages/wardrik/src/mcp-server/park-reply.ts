import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { compileSchema } from '@wardrik/core';
import type { Budget, ParkDecision } from '../journal/records.js';
import type { ParkRow } from '../store/store.js';
import type { ParkQuestion } from './park-question.js';

/**
 * What an MCP client's reply to a park question does: answer the park with a decision (bound to
 * the call's hash like any answer), or stop the run (`cancel` on a park whose kind has no `stop`
 * decision: the run is cancelled).
 */
export type ParkReply =
  | { readonly type: 'decision'; readonly decision: ParkDecision }
  | { readonly type: 'stop'; readonly reason: string };

/** An elicitation reply that does not fit the question: nothing is answered, the park stays open. */
export class UnfitReplyError extends Error {}

/**
 * What a reply to `question` about `park` does, per kind:
 *
 * | kind       | accept                                             | decline        | cancel         |
 * |------------|----------------------------------------------------|----------------|----------------|
 * | `approval` | `approve`; `edit` with the fields changed, if any  | `deny`         | stop the run   |
 * | `tool`     | `answer` with the `answer` field (or, for the      | `fail`         | stop the run   |
 * |            | tool's own form, the content, defaults filled in)  |                |                |
 * | `budget`   | `raise-budget` to the limits given                 | `stop`         | `stop`         |
 *
 * Throws `UnfitReplyError` naming every field that is wrong (a type, a bound, a field the form
 * does not have, a budget without any limit).
 *
 * @example
 * ```ts
 * parkReply(park, question, { action: 'accept', content: { amount: 90 } }, 'alice')
 * // { type: 'decision', decision: { type: 'edit', arguments: { order_id: 'A1', amount: 90 }, note: … } }
 * ```
 */
export function parkReply(park: ParkRow, question: ParkQuestion, reply: ElicitResult, by: string): ParkReply {
  const declined = `declined by ${by} over MCP`;
  const stopped = `stopped by ${by} over MCP (${park.kind} park ${park.id}: elicitation cancelled)`;
  if (reply.action === 'cancel') {
    return park.kind === 'budget'
      ? { type: 'decision', decision: { type: 'stop', reason: stopped } }
      : { type: 'stop', reason: stopped };
  }
  if (reply.action === 'decline') {
    const decision: ParkDecision =
      park.kind === 'approval'
        ? { type: 'deny', reason: declined }
        : park.kind === 'budget'
          ? { type: 'stop', reason: declined }
          : { type: 'fail', reason: declined };
    return { type: 'decision', decision };
  }
  const content = checkedContent(question, reply.content ?? {});
  switch (park.kind) {
    case 'tool':
      return {
        type: 'decision',
        decision: {
          type: 'answer',
          value: question.toolForm ? withDefaults(question, content) : content['answer'],
        },
      };
    case 'budget': {
      const budget: Record<string, number> = {};
      for (const limit of ['usd', 'tokens', 'steps'] as const) {
        if (typeof content[limit] === 'number') budget[limit] = content[limit];
      }
      if (Object.keys(budget).length === 0)
        throw new UnfitReplyError('content: give at least one of usd, tokens, steps');
      return { type: 'decision', decision: { type: 'raise-budget', budget: budget as Budget } };
    }
    default: {
      const changed = Object.entries(content).filter(([name, value]) => question.editable[name] !== value);
      if (changed.length === 0)
        return { type: 'decision', decision: { type: 'approve', note: `approved by ${by} over MCP` } };
      const original = (park.call?.arguments ?? {}) as Record<string, unknown>;
      return {
        type: 'decision',
        decision: {
          type: 'edit',
          arguments: { ...original, ...Object.fromEntries(changed) },
          note: `edited by ${by} over MCP: ${changed.map(([name]) => name).join(', ')}`,
        },
      };
    }
  }
}

/** `content` with each field it leaves out that has a default given that default (SEP-1034). */
function withDefaults(question: ParkQuestion, content: Record<string, unknown>): Record<string, unknown> {
  const filled: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(question.params.requestedSchema.properties)) {
    if (!Object.hasOwn(content, name) && 'default' in field && field.default !== undefined)
      filled[name] = field.default;
  }
  return { ...filled, ...content };
}

/** The reply's content, checked against the form it answers. */
function checkedContent(question: ParkQuestion, content: Record<string, unknown>): Record<string, unknown> {
  const schema = question.params.requestedSchema;
  const fields = Object.keys(schema.properties);
  const problems = Object.keys(content)
    .filter((name) => !fields.includes(name))
    .map((name) => `content.${name}: not a field of this form (it has ${fields.join(', ') || 'none'})`);
  const checked = compileSchema({ ...schema, type: 'object' }).validate(content);
  if (checked instanceof Promise) throw new TypeError('a JSON Schema checks at once');
  if (!checked.ok)
    problems.push(...checked.issues.map((issue) => `content${issue.path ? `.${issue.path}` : ''}: ${issue.message}`));
  if (problems.length) throw new UnfitReplyError(problems.join('; '));
  return content;
}
