import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { InvalidParkAnswerError, ParkAlreadyAnsweredError, RunEndedError, StaleParkAnswerError } from '../errors.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { ParkRow } from '../store/store.js';
import { askForPerson } from './input-elicitation.js';
import { alreadyAnswered, elicitAbout, noteOf, type ParkAskDeps } from './park-asking.js';
import { parkQuestion } from './park-question.js';
import { parkReply, UnfitReplyError } from './park-reply.js';
import type { ParkNote } from './settle-run.js';

export type { ParkAskDeps } from './park-asking.js';

/**
 * Asks the client about `park` (of a run of `agent`) with an elicitation and answers the park
 * with the reply (see `parkReply` for what accept, decline and cancel do), bound to the call's
 * hash as any answer. The first answer wins: a reply after someone else's is refused, and the
 * client told so; a question whose park is answered meanwhile is withdrawn (`signal`).
 *
 * Throws an `McpError` (InvalidParams) for a reply that does not fit its form or that the park
 * refuses (an edit the tool would refuse): nothing is answered, the park stays open, and the error
 * says how to be asked again. An `input` or `authorize` park is asked as `askForPerson` says.
 */
export async function askAboutPark(
  deps: ParkAskDeps,
  park: ParkRow,
  agent: string,
  signal: AbortSignal,
): Promise<ParkNote> {
  if (park.kind === 'input' || park.kind === 'authorize') return askForPerson(deps, park, signal);
  const { wardrik, principal } = deps;
  const note = (outcome: ParkNote['outcome'], detail: string): ParkNote => noteOf(park, outcome, detail);
  const question = parkQuestion(park, { agent, ...inputSchemaOf(wardrik, agent, park) });
  const elicited = await elicitAbout(deps, park, question.params, signal);
  if ('note' in elicited) return elicited.note;
  const { reply } = elicited;
  const refused = (detail: string) => {
    deps.log('warning', `your answer to park ${park.id} was refused: ${detail}`);
    return note('refused', detail);
  };
  try {
    const action = parkReply(park, question, reply, principal.name);
    if (action.type === 'decision') {
      await wardrik.answerPark(park.id, action.decision, { callHash: park.callHash, by: principal.name });
      return note('answered', `${reply.action}: ${action.decision.type}`);
    }
    const now = await wardrik.getPark(park.id);
    if (now.status !== 'open') return refused(alreadyAnswered(now));
    await wardrik.cancel(park.runId, action.reason);
    return note('answered', `${reply.action}: the run was stopped`);
  } catch (thrown) {
    if (ParkAlreadyAnsweredError.isInstance(thrown) || StaleParkAnswerError.isInstance(thrown)) {
      const now = await wardrik.getPark(park.id).catch(() => undefined);
      return refused(now && now.status !== 'open' ? alreadyAnswered(now) : thrown.message);
    }
    if (RunEndedError.isInstance(thrown)) return refused(thrown.message);
    if (thrown instanceof UnfitReplyError || InvalidParkAnswerError.isInstance(thrown)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `your answer to park ${park.id} was refused: ${thrown.message}. Nothing was run: the park is still open; ` +
          `call tasks/result with taskId ${park.runId} to be asked again, or answer it in the console or CLI`,
        { runId: park.runId, parkId: park.id, taskId: park.runId },
      );
    }
    throw thrown;
  }
}

/** The schema of the tool a park's call names, when the run's agent offers it as its own. */
function inputSchemaOf(wardrik: Wardrik, agent: string, park: ParkRow): { inputSchema?: Record<string, unknown> } {
  if (!park.call) return {};
  const definition = wardrik
    .agents()
    .find((each) => each.name === agent)
    ?.toolDefinitions.find((each) => each.name === park.call?.name);
  return definition ? { inputSchema: definition.inputSchema } : {};
}
