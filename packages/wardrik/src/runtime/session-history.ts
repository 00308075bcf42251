import type { Label } from '@wardrik/core';
import type { Agent } from '../agent.js';
import type { RunState } from '../journal/state.js';
import type { Message } from '../model/model.js';

/** What a run in a session starts from: the conversation before it, and the labels it carries. */
export interface SessionStart {
  readonly history: Message[];
  readonly labels: readonly Label[];
}

/** How a summary of older turns is put before the window. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation:\n';

/**
 * The history the next run of a session sees, from the run before it: that run's conversation
 * (its own history included) without a last step whose calls were never all answered, cut to the
 * agent's window at a turn's start, the messages cut folded into a summary if the agent has a
 * `summarize` hook. The run carries on the labels its predecessor ended with: the text it sees
 * came from there.
 */
export async function sessionStart(previous: RunState | undefined, agent: Agent): Promise<SessionStart> {
  if (previous === undefined) return { history: [], labels: [] };
  const messages = withoutUnanswered(previous.messages);
  let summary: string | undefined;
  let conversation = messages;
  const first = messages[0];
  if (first?.role === 'user' && first.content.startsWith(SUMMARY_PREFIX)) {
    summary = first.content.slice(SUMMARY_PREFIX.length);
    conversation = messages.slice(1);
  }
  const { maxMessages, summarize } = agent.history;
  if (conversation.length > maxMessages) {
    const cut = windowStart(conversation, conversation.length - maxMessages);
    const dropped = conversation.slice(0, cut);
    conversation = conversation.slice(cut);
    summary = summarize ? await summarize({ dropped, ...(summary === undefined ? {} : { summary }) }) : undefined;
    if (summary !== undefined && typeof summary !== 'string') {
      throw new TypeError(`agent ${agent.name}: history.summarize returned ${typeof summary}, not a string`);
    }
  }
  const history =
    summary === undefined
      ? conversation
      : [{ role: 'user' as const, content: `${SUMMARY_PREFIX}${summary}` }, ...conversation];
  return { history, labels: previous.labels };
}

/** The first index at or after `from` where a turn starts (a user message), else where no tool answer is cut from its call. */
function windowStart(messages: readonly Message[], from: number): number {
  for (let index = from; index < messages.length; index++) if (messages[index]?.role === 'user') return index;
  let index = from;
  while (index < messages.length && messages[index]?.role === 'tool') index++;
  return index;
}

/** The conversation without a last model step whose calls were not all answered (the run was cancelled or failed mid-step). */
function withoutUnanswered(messages: readonly Message[]): Message[] {
  let lastAssistant = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === 'assistant') {
      lastAssistant = index;
      break;
    }
  }
  const step = messages[lastAssistant];
  if (step?.role !== 'assistant' || step.toolCalls.length === 0) return [...messages];
  const answered = messages.length - lastAssistant - 1;
  return answered >= step.toolCalls.length ? [...messages] : messages.slice(0, lastAssistant);
}
