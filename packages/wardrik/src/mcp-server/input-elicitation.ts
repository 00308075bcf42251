import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { compileSchema, type JsonSchema } from '@wardrik/core';
import { InvalidParkAnswerError, ParkAlreadyAnsweredError, RunEndedError, StaleParkAnswerError } from '../errors.js';
import type { ParkDecision } from '../journal/records.js';
import type { ParkRow } from '../store/store.js';
import { inputQuestion } from './input-question.js';
import { alreadyAnswered, elicitAbout, noteOf, type ParkAskDeps } from './park-asking.js';
import type { ParkNote } from './settle-run.js';

/**
 * Asks an MCP client the person's part of an `input` park (a call's question) or an `authorize`
 * park (a sign-in), as `inputQuestion` phrases it; a park the client can't be asked about is left
 * to people. The first answer wins, as for every park.
 *
 * - `input`: accept answers `{ type: 'answer', value: content ?? {} }` (checked against the
 *   question's schema, its defaults filled in), decline answers `deny`, cancel answers `stop`
 *   (the question, not the run). Content that does not fit the schema throws an `McpError`
 *   (InvalidParams) naming each field: nothing is answered and the question stays open.
 * - `authorize`: accept means the person went to the URL to sign in. Nothing is answered then:
 *   the sign-in's callback answers the park (a `retry` answered now would start a new sign-in and
 *   refuse the one the person is finishing). Once the park is answered, the client is told the
 *   URL elicitation is complete (`notifications/elicitation/complete`). Decline and cancel leave
 *   the sign-in to people; the run is not stopped.
 */
export async function askForPerson(deps: ParkAskDeps, park: ParkRow, signal: AbortSignal): Promise<ParkNote> {
  const params = inputQuestion(park, deps.modes ?? { form: true, url: false });
  if (!params) {
    deps.log('info', `park ${park.id} waits for people (console, CLI): it can't be asked over MCP elicitation`);
    return noteOf(park, 'left-to-people', "this client can't be asked it; people answer it (console, CLI)");
  }
  const elicited = await elicitAbout(deps, park, params, signal);
  if ('note' in elicited) return elicited.note;
  const { reply } = elicited;
  if (park.kind === 'authorize') {
    if (reply.action !== 'accept') {
      deps.log('info', `park ${park.id} waits for people (console, CLI): the sign-in was ${reply.action}d over MCP`);
      return noteOf(park, 'left-to-people', `${reply.action}: the sign-in is left to people; the run still waits`);
    }
    // The person went to sign in: the callback answers the park; this waits for it (or the request's end).
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (params.mode === 'url') deps.completed?.(params.elicitationId);
    return noteOf(park, 'answered-elsewhere', `accept: the person went to sign in; ${String(signal.reason)}`);
  }
  const by = deps.principal.name;
  const decision: ParkDecision =
    reply.action === 'accept'
      ? { type: 'answer', value: params.mode === 'form' ? checkedContent(park, reply.content ?? {}) : {} }
      : reply.action === 'decline'
        ? { type: 'deny', reason: `declined by ${by} over MCP` }
        : { type: 'stop', reason: `cancelled by ${by} over MCP` };
  try {
    await deps.wardrik.answerPark(park.id, decision, { callHash: park.callHash, by });
    return noteOf(park, 'answered', `${reply.action}: ${decision.type}`);
  } catch (thrown) {
    if (
      ParkAlreadyAnsweredError.isInstance(thrown) ||
      StaleParkAnswerError.isInstance(thrown) ||
      RunEndedError.isInstance(thrown)
    ) {
      const now = await deps.wardrik.getPark(park.id).catch(() => undefined);
      const detail = now && now.status !== 'open' ? alreadyAnswered(now) : (thrown as Error).message;
      deps.log('warning', `your answer to park ${park.id} was refused: ${detail}`);
      return noteOf(park, 'refused', detail);
    }
    if (InvalidParkAnswerError.isInstance(thrown)) throw unfit(park, thrown.message);
    throw thrown;
  }
}

/** The accepted content of a form question, checked against its schema (every wrong field named). */
function checkedContent(park: ParkRow, content: Record<string, unknown>): Record<string, unknown> {
  const schema = (park.details as { schema?: JsonSchema } | undefined)?.schema;
  if (schema === undefined) return content;
  const checked = compileSchema(schema).validate(content);
  if (checked instanceof Promise || checked.ok) return content;
  const problems = checked.issues.map((issue) => `content${issue.path ? `.${issue.path}` : ''}: ${issue.message}`);
  throw unfit(park, problems.join('; '));
}

function unfit(park: ParkRow, problems: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `your answer to park ${park.id} was refused: ${problems}. Nothing was answered: the question is still open; ` +
      `answer it in the console or CLI, or call tasks/result with taskId ${park.runId} to be asked again`,
    { runId: park.runId, parkId: park.id, taskId: park.runId },
  );
}
