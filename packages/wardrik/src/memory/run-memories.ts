import type { StoredRecord } from '../journal/records.js';
import { applyRecord, emptyState } from '../journal/state.js';
import { checkJournal } from '../journal/versions.js';
import type { MemoryEntry } from './memory-service.js';

/**
 * What a run adds to memory: its own messages (not the history it started from) that carry
 * text — the input (`user`) and the agent's replies (`assistant`), not tool answers — each with
 * the labels the run carried when it was said. The journal is folded record by record so that
 * each message gets the labels of its moment: a reply written after the run read `outside` text
 * carries `outside`; the input before it does not (unless the run started with it).
 */
export function runMemories(runId: string, journal: readonly StoredRecord[]): MemoryEntry[] {
  const state = emptyState(runId);
  const entries: MemoryEntry[] = [];
  let seen = 0;
  for (const stored of checkJournal(runId, journal)) {
    applyRecord(state, stored.seq, stored.record);
    const messages = state.messages;
    if (messages.length < seen) seen = messages.length; // a cut step: what follows is new
    for (let index = Math.max(seen, state.historyLength); index < messages.length; index++) {
      const message = messages[index];
      if (message === undefined || message.role === 'tool') continue;
      const text = message.role === 'user' ? message.content : message.text;
      if (text.trim() === '') continue;
      entries.push({
        id: `${runId}:${index - state.historyLength}`,
        role: message.role,
        text,
        labels: [...state.labels],
        at: stored.record.at,
        runId,
      });
    }
    seen = messages.length;
  }
  // A message cut and said again at the same place keeps its first id: the last one said there wins.
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  return [...byId.values()];
}
