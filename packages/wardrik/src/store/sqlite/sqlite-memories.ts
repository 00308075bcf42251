import type Database from 'better-sqlite3';
import type { MemoryIndex } from '../memory-index.js';
import {
  embeddingBytes,
  embeddingFrom,
  type FoundMemory,
  type MemoryFilter,
  type MemoryQuery,
  type StoredMemory,
} from '../memory-index.js';
import type { SqliteExecutor } from './sqlite-executor.js';

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
 * A word is common when more memories than this share hold it (and at least {@link COMMON_FLOOR}):
 * it says little about which memory is meant (BM25 weighs it near nothing) and ranking every
 * memory holding it is what makes a search slow. Common words are searched for only when a query
 * has nothing else.
 */
const COMMON_SHARE = 0.02;
const COMMON_FLOOR = 50;
/** How many words' counts are kept, and how much the index may grow before they are counted again. */
const COUNTS_KEPT = 10_000;
const COUNTS_STALE = 1.1;
/** How many of the index's best matches per result are read first, to be checked for their owner. */
const BEST_READ = 8;

/** An FTS5 query for any (`OR`) or every (`AND`) of `words` (letters and digits only, so quoting them is enough). */
function matchExpression(words: readonly string[], operator: 'OR' | 'AND'): string {
  return words.map((word) => `"${word}"`).join(` ${operator} `);
}

/** Prepares the statements of memories (the schema is migrated already). */
export function prepareMemories(database: Database.Database): SqliteMemories {
  const insert = database.prepare<
    [string, string, string, string | null, string | null, string, string, string, number, Buffer | null]
  >(
    `INSERT INTO memories (id, app, principal, session_id, run_id, role, text, labels, at, embedding)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  const index = database.prepare<[number | bigint, string]>('INSERT INTO memories_fts (rowid, text) VALUES (?, ?)');
  const known = database.prepare<[string], { id: string }>('SELECT id FROM memories WHERE id = ?');
  const byId = database.prepare<[string], MemoryColumns>('SELECT * FROM memories WHERE id = ?');
  // bm25: lower is better (bm25() sorts faster than FTS5's rank column). The index ranks its matches alone, and only the best few are
  // read and checked for their owner; if too few of those are the owner's, every match is.
  const best = database.prepare<[string, number, number], { rowid: number; rank: number }>(
    `SELECT rowid, bm25(memories_fts) AS rank FROM memories_fts WHERE memories_fts MATCH ?
     ORDER BY rank LIMIT ? OFFSET ?`,
  );
  const byRowid = database.prepare<[number], MemoryColumns>('SELECT * FROM memories WHERE rowid = ?');
  // The newest matches, each scored: for queries of common words only, where BM25 tells little.
  const newest = database.prepare<[string, string, string, number], MemoryColumns & { score: number }>(
    `SELECT m.*, -bm25(memories_fts) AS score
     FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid
     WHERE memories_fts MATCH ? AND m.app = ? AND m.principal = ?
     ORDER BY memories_fts.rowid DESC LIMIT ?`,
  );
  // How many memories hold a word, counted up to a bound (so that counting a common word costs little).
  const holding = database.prepare<[string, number], { count: number }>(
    'SELECT count(*) AS count FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)',
  );
  const size = database.prepare<[], { size: number | null }>('SELECT max(rowid) AS size FROM memories');
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

  /** Whether words are common, as counted from the index; kept until it grew by a tenth. */
  const commonWords = new Map<string, boolean>();
  let countedAt = 0;
  const isCommon = (word: string, total: number): boolean => {
    if (total > countedAt * COUNTS_STALE || commonWords.size > COUNTS_KEPT) {
      commonWords.clear();
      countedAt = total;
    }
    let common = commonWords.get(word);
    if (common === undefined) {
      const bound = Math.ceil(Math.max(COMMON_FLOOR, countedAt * COMMON_SHARE));
      common = (holding.get(`"${word}"`, bound + 1)?.count ?? 0) > bound;
      commonWords.set(word, common);
    }
    return common;
  };

  const latest = (query: MemoryQuery, operator: 'OR' | 'AND'): FoundMemory[] =>
    newest
      .all(matchExpression(query.words, operator), query.app, query.principal, query.limit)
      .map((row) => ({ ...memoryFrom(row), score: row.score }));

  const ranked = (query: MemoryQuery, words: readonly string[], operator: 'OR' | 'AND'): FoundMemory[] => {
    const match = matchExpression(words, operator);
    const found: FoundMemory[] = [];
    // The best few first; more (all the rest) only if too few of them are the owner's.
    for (const [offset, count] of [
      [0, query.limit * BEST_READ],
      [query.limit * BEST_READ, -1],
    ] as const) {
      const batch = best.all(match, count, offset);
      for (const { rowid, rank } of batch) {
        const row = byRowid.get(rowid);
        if (row?.app !== query.app || row.principal !== query.principal) continue;
        found.push({ ...memoryFrom(row), score: -rank });
        if (found.length === query.limit) return found;
      }
      if (count !== -1 && batch.length < count) break;
    }
    return found;
  };

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
        index.run(result.lastInsertRowid, memory.text);
        added += 1;
      }
      return added;
    }),
    knownMemories: (ids) => ids.filter((id) => known.get(id) !== undefined),
    searchMemories: (query) => {
      // The rarer words of the query are what tell memories apart: search for any of them. A query
      // of common words only looks for memories holding all of them first, then any.
      const total = size.get()?.size ?? 0;
      const rare = query.words.filter((word) => !isCommon(word, total));
      if (rare.length > 0) return ranked(query, rare, 'OR');
      // Common words only: BM25 tells little between the many memories holding them, and ranking
      // them all is slow. The newest holding every word come first, then the newest holding any.
      const every = latest(query, 'AND');
      if (every.length >= query.limit || query.words.length === 1) return every;
      const seen = new Set(every.map((found) => found.id));
      return [...every, ...latest(query, 'OR').filter((found) => !seen.has(found.id))].slice(0, query.limit);
    },
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

/** Memories on SQLite, as the store's part: they never wait for queued run writes. */
export class SqliteMemoryIndex implements MemoryIndex {
  readonly #executor: SqliteExecutor;
  readonly #statements: () => SqliteMemories;

  constructor(executor: SqliteExecutor) {
    this.#executor = executor;
    this.#statements = executor.statements(prepareMemories);
  }

  addMemories(memories: readonly StoredMemory[]): Promise<number> {
    return this.#executor.writeNowResult('adding memories', () => this.#statements().addMemories(memories));
  }

  async knownMemories(ids: readonly string[]): Promise<string[]> {
    return this.#executor.readNow('reading memories', () => this.#statements().knownMemories(ids));
  }

  async searchMemories(query: MemoryQuery): Promise<FoundMemory[]> {
    return this.#executor.readNow('searching memories', () => this.#statements().searchMemories(query));
  }

  async memoryEmbeddings(app: string, principal: string): Promise<{ id: string; embedding: Float32Array }[]> {
    return this.#executor.readNow('reading embeddings', () => this.#statements().memoryEmbeddings(app, principal));
  }

  async getMemories(ids: readonly string[]): Promise<Omit<StoredMemory, 'embedding'>[]> {
    return this.#executor.readNow('reading memories', () => this.#statements().getMemories(ids));
  }

  deleteMemories(filter: MemoryFilter): Promise<number> {
    return this.#executor.writeNowResult('deleting memories', () => this.#statements().deleteMemories(filter));
  }
}
