import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  embeddingBytes,
  embeddingFrom,
  type FoundMemory,
  type MemoryFilter,
  type MemoryQuery,
  type StoredMemory,
} from '../memory-index.js';

interface MemoryColumns {
  readonly rowid: number;
  readonly id: string;
  readonly app: string;
  readonly principal: string;
  readonly session_id: string | null;
  readonly run_id: string | null;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly labels: string;
  readonly at: number;
}

/** Memories on SQLite (FTS5, BM25): synchronous functions, run by the store inside its reads and writes. */
export interface SqliteMemories {
  addMemories(memories: readonly StoredMemory[]): number;
  knownMemories(ids: readonly string[]): string[];
  searchMemories(query: MemoryQuery): FoundMemory[];
  memoryEmbeddings(app: string, principal: string): { id: string; embedding: Float32Array }[];
  getMemories(ids: readonly string[]): Omit<StoredMemory, 'embedding'>[];
  deleteMemories(filter: MemoryFilter): number;
}

/**
 * The token naming an (app, principal) pair in the full-text index: the search's first term, so
 * that FTS5 walks only that owner's postings, however many memories others have.
 */
export function ownerToken(app: string, principal: string): string {
  return `o${createHash('sha256').update(app).update('\u0000').update(principal).digest('hex').slice(0, 24)}`;
}

/** An FTS5 query for `words` among the memories of `owner` (words are letters and digits only, so quoting them is enough). */
function matchExpression(owner: string, words: readonly string[]): string {
  return `owner:"${owner}" AND text:(${words.map((word) => `"${word}"`).join(' OR ')})`;
}

/** Prepares the statements of memories (the schema is migrated already). */
export function prepareMemories(database: Database.Database): SqliteMemories {
  const insert = database.prepare<
    [string, string, string, string | null, string | null, string, string, string, number, Buffer | null]
  >(
    `INSERT INTO memories (id, app, principal, session_id, run_id, role, text, labels, at, embedding)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const index = database.prepare<[number | bigint, string, string]>(
    'INSERT INTO memories_fts (rowid, owner, text) VALUES (?, ?, ?)',
  );
  const known = database.prepare<[string], { id: string }>('SELECT id FROM memories WHERE id = ?');
  const byId = database.prepare<[string], MemoryColumns>('SELECT * FROM memories WHERE id = ?');
  // bm25 weights: the owner column 0 (it only selects), the text 1. Lower bm25 is better.
  const search = database.prepare<[string, string, string, number], MemoryColumns & { score: number }>(
    `SELECT m.*, -bm25(memories_fts, 0.0, 1.0) AS score
     FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid
     WHERE memories_fts MATCH ? AND m.app = ? AND m.principal = ?
     ORDER BY bm25(memories_fts, 0.0, 1.0), m.at DESC LIMIT ?`,
  );
  const embeddings = database.prepare<[string, string], { id: string; embedding: Buffer }>(
    'SELECT id, embedding FROM memories WHERE app = ? AND principal = ? AND embedding IS NOT NULL',
  );
  const owned = database.prepare<[string, string], { rowid: number }>(
    'SELECT rowid FROM memories WHERE app = ? AND principal = ?',
  );
  const ownedInSession = database.prepare<[string, string, string], { rowid: number }>(
    'SELECT rowid FROM memories WHERE app = ? AND principal = ? AND session_id = ?',
  );
  const unindex = database.prepare<[number]>('DELETE FROM memories_fts WHERE rowid = ?');
  const remove = database.prepare<[number]>('DELETE FROM memories WHERE rowid = ?');

  return {
    addMemories: database.transaction((memories: readonly StoredMemory[]): number => {
      let added = 0;
      for (const memory of memories) {
        const result = insert.run(
          memory.id,
          memory.app,
          memory.principal,
          memory.sessionId ?? null,
          memory.runId ?? null,
          memory.role,
          memory.text,
          JSON.stringify(memory.labels),
          memory.at,
          memory.embedding ? embeddingBytes(memory.embedding) : null,
        );
        if (result.changes === 0) continue;
        index.run(result.lastInsertRowid, ownerToken(memory.app, memory.principal), memory.text);
        added += 1;
      }
      return added;
    }),
    knownMemories: (ids) => ids.filter((id) => known.get(id) !== undefined),
    searchMemories: (query) =>
      search
        .all(
          matchExpression(ownerToken(query.app, query.principal), query.words),
          query.app,
          query.principal,
          query.limit,
        )
        .map((row) => ({ ...memoryFrom(row), score: row.score })),
    memoryEmbeddings: (app, principal) =>
      embeddings.all(app, principal).map((row) => ({ id: row.id, embedding: embeddingFrom(row.embedding) })),
    getMemories: (ids) =>
      ids.flatMap((id) => {
        const row = byId.get(id);
        return row ? [memoryFrom(row)] : [];
      }),
    deleteMemories: database.transaction((filter: MemoryFilter): number => {
      const rows =
        filter.sessionId === undefined
          ? owned.all(filter.app, filter.principal)
          : ownedInSession.all(filter.app, filter.principal, filter.sessionId);
      for (const { rowid } of rows) {
        unindex.run(rowid);
        remove.run(rowid);
      }
      return rows.length;
    }),
  };
}

function memoryFrom(row: MemoryColumns): Omit<StoredMemory, 'embedding'> {
  return {
    id: row.id,
    app: row.app,
    principal: row.principal,
    ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    ...(row.run_id === null ? {} : { runId: row.run_id }),
    role: row.role,
    text: row.text,
    labels: JSON.parse(row.labels) as string[],
    at: row.at,
  };
}
