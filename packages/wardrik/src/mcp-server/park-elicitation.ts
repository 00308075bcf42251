import {
  type ElicitRequestFormParams,
  type ElicitResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/types.js';
import { InvalidParkAnswerError, ParkAlreadyAnsweredError, RunEndedError, StaleParkAnswerError } from '../errors.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { ParkRow } from '../store/store.js';
import { parkQuestion } from './park-question.js';
import { parkReply, UnfitReplyError } from './park-reply.js';
import type { ParkNote } from './settle-run.js';

/** What asking an MCP client about a park needs. */
export interface ParkAskDeps {
  readonly wardrik: Wardrik;
  /** Who is asked (and answers: their name is the answer's `by`). */
  readonly principal: Principal;
  /** Sends `elicitation/create` on the request's stream; rejects on timeout, on a closed stream, or when `signal` aborts. */
  readonly elicit: (params: ElicitRequestFormParams, signal: AbortSignal) => Promise<ElicitResult>;
  /** Tells the client something worth a log line (`notifications/message`). */
  readonly log: (level: 'info' | 'warning', message: string) => void;
}

/**
 * Asks the client about `park` (of a run of `agent`) with an elicitation and answers the park
 * with the reply (see `parkReply` for what accept, decline and cancel do), bound to the call's
 * hash as any answer. The first answer wins: a reply after someone else's is refused, and the
 * client told so; a question whose park is answered meanwhile is withdrawn (`signal`).
 *
 * Throws an `McpError` (InvalidParams) for a reply that does not fit its form or that the park
 * refuses (an edit the tool would refuse): nothing is answered, the park stays open, and the error
 * says how to be asked again.
 */
export async function askAboutPark(
  deps: ParkAskDeps,
  park: ParkRow,
  agent: string,
  signal: AbortSignal,
): Promise<ParkNote> {
  const { wardrik, principal } = deps;
  const note = (outcome: ParkNote['outcome'], detail: string): ParkNote => ({
    park: park.id,
    kind: park.kind,
    outcome,
    detail,
  });
  const question = parkQuestion(park, { agent, ...inputSchemaOf(wardrik, agent, park) });
  let reply: ElicitResult;
  // Its own signal, let go once the reply is in: the SDK would send notifications/cancelled for a
  // request already answered if the park's signal aborted later.
  const asked = new AbortController();
  const forward = () => asked.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  try {
    reply = await deps.elicit(question.params, asked.signal);
  } catch (thrown) {
    if (signal.aborted) return note('answered-elsewhere', String(signal.reason));
    const why = thrown instanceof Error ? thrown.message : String(thrown);
    deps.log('info', `park ${park.id} waits for people (console, CLI): the client gave no answer (${why})`);
    return note('left-to-people', `the client gave no answer (${why}); people answer it`);
  } finally {
    signal.removeEventListener('abort', forward);
  }
  if (signal.aborted) return note('answered-elsewhere', String(signal.reason));
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

function alreadyAnswered(park: ParkRow): string {
  return park.status === 'answered'
    ? `park ${park.id} was answered by ${park.answeredBy ?? 'someone'} (${park.decision?.type ?? 'answer'}) first; it takes one answer only`
    : `park ${park.id} was closed (its run was cancelled)`;
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
