import type { SessionDetails } from '../runtime/sessions.js';
import type { SessionRow } from '../store/session-store.js';
import { usageError } from './cli-error.js';
import type { WardrikClient } from './client.js';
import { shown } from './describe.js';
import { invisibleLines } from './invisible-lines.js';
import { clip } from './output.js';
import { paint, type Style } from './style.js';

/** A session opened for a chat, and whether the chat created it. */
export interface OpenedSession {
  readonly session: SessionDetails;
  readonly created: boolean;
}

/**
 * A new session with `agent` (`POST /v1/sessions`), or the session `sessionId` with its runs and
 * conversation (`GET /v1/sessions/:id`), which must be one with `agent`.
 */
export async function openSession(
  client: WardrikClient,
  agent: string,
  sessionId: string | undefined,
): Promise<OpenedSession> {
  if (sessionId === undefined) {
    const row = await client.request<SessionRow>('POST', '/v1/sessions', { agent });
    return {
      session: { ...row, runList: [], messages: [], earlierMessages: false, state: [], edits: [] },
      created: true,
    };
  }
  // The last messages are enough to show where the conversation stands.
  const session = await client.request<SessionDetails>(
    'GET',
    `/v1/sessions/${encodeURIComponent(sessionId)}?messages=100`,
  );
  if (session.agent !== agent) {
    throw usageError(
      `session ${sessionId} is a conversation with ${session.agent}, not ${agent}: continue it with \`wardrik chat ${session.agent} --session ${sessionId}\``,
    );
  }
  return { session, created: false };
}

/** The session's run that is still going (running or parked), if its latest is. */
export function goingRun(session: SessionDetails): SessionDetails['runList'][number] | undefined {
  const last = session.runList.at(-1);
  return last && (last.status === 'running' || last.status === 'parked') ? last : undefined;
}

/**
 * The last `count` messages people and the agent wrote in the session (calls and tool answers
 * left out), one line each: `you: …`, `AGENT: …` (a message with invisible characters flagged on
 * a line of its own); first, how many earlier ones are not shown.
 */
export function conversationLines(session: SessionDetails, style: Style, count = 6): string[] {
  const said: string[][] = [];
  for (const message of session.messages) {
    const [who, text] =
      message.role === 'user'
        ? ['you:', message.content]
        : message.role === 'assistant' && message.text.trim() !== ''
          ? [`${session.agent}:`, message.text]
          : [];
    if (who === undefined || text === undefined) continue;
    said.push([`  ${paint(style, 'bold', who)} ${clip(shown(text), 400)}`, ...invisibleLines(text, style)]);
  }
  const latest = said.slice(-count).flat();
  const earlier = Math.max(0, said.length - count);
  return earlier > 0
    ? [paint(style, 'dim', `  (${earlier} earlier message${earlier === 1 ? '' : 's'})`), ...latest]
    : latest;
}
