import type pg from 'pg';
import {
  embeddingBytes,
  embeddingFrom,
  type FoundMemory,
  type MemoryFilter,
  type MemoryQuery,
  type StoredMemory,
} from '../memory-index.js';

/*
 * Memories on PostgreSQL: full-text search on a generated tsvector column (english), ranked with
 * ts_rank_cd. Each function is one statement or one transaction (durable when it resolves).
 */

interface MemoryColumns {
  readonly id: string;
  readonly app: string;
  readonly principal: string;
  readonly session_id: string | null;
  readonly run_id: string | null;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly labels: string;
  readonly at: string;
}

const COLUMNS = 'id, app, principal, session_id, run_id, role, text, labels, at';

export async function addMemories(client: pg.ClientBase, memories: readonly StoredMemory[]): Promise<number> {
  if (memories.length === 0) return 0;
  const { rowCount } = await client.query(
    `INSERT INTO memories (id, app, principal, session_id, run_id, role, text, labels, at, embedding)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                          $8::text[], $9::bigint[], $10::bytea[])
     ON CONFLICT (id) DO NOTHING`,
    [
      memories.map((memory) => memory.id),
      memories.map((memory) => memory.app),
      memories.map((memory) => memory.principal),
      memories.map((memory) => memory.sessionId ?? null),
      memories.map((memory) => memory.runId ?? null),
      memories.map((memory) => memory.role),
      memories.map((memory) => memory.text),
      memories.map((memory) => JSON.stringify(memory.labels)),
      memories.map((memory) => memory.at),
      memories.map((memory) => (memory.embedding ? embeddingBytes(memory.embedding) : null)),
    ],
  );
  return rowCount ?? 0;
}

export async function knownMemories(client: pg.ClientBase, ids: readonly string[]): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>('SELECT id FROM memories WHERE id = ANY($1)', [ids]);
  return rows.map((row) => row.id);
}

/** A word held by more memories than this share is common: see the SQLite store. */
const COMMON_SHARE = 0.02;
/** How long the planner's word frequencies are kept before they are read again (ms). */
const FREQUENCIES_KEPT_MS = 60_000;

/**
 * How often lexemes occur in memories, as PostgreSQL's statistics have them (`pg_stats`
 * `most_common_elems` of the search column, gathered by ANALYZE, which autovacuum runs as the
 * table grows): read once a minute, since reading pg_stats costs milliseconds. A lexeme not among
 * them is rare. Before the first ANALYZE, every word is.
 */
export class MemoryFrequencies {
  #frequencies: Map<string, number> | undefined;
  #readAt = 0;

  async of(client: pg.ClientBase, now = Date.now()): Promise<ReadonlyMap<string, number>> {
    if (this.#frequencies === undefined || now - this.#readAt > FREQUENCIES_KEPT_MS) {
      const { rows } = await client.query<{ elems: string[] | null; freqs: number[] | null }>(
        `SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
         WHERE schemaname = current_schema() AND tablename = 'memories' AND attname = 'search'`,
      );
      const elems = rows[0]?.elems ?? [];
      const freqs = rows[0]?.freqs ?? [];
      this.#frequencies = new Map(elems.map((elem, index) => [elem, freqs[index] ?? 0]));
      this.#readAt = now;
    }
    return this.#frequencies;
  }
}

export async function searchMemories(
  client: pg.ClientBase,
  query: MemoryQuery,
  frequencies: MemoryFrequencies,
): Promise<FoundMemory[]> {
  // Words are letters and digits only: joined with | or & they are a safe tsquery.
  const known = await frequencies.of(client);
  const { rows: lexemes } = await client.query<{ word: string; lexemes: string | null }>({
    name: 'wardrik_memory_lexemes_v1',
    text: `SELECT word, (SELECT string_agg(lexeme, ' ') FROM unnest(to_tsvector('english'::regconfig, word))) AS lexemes
           FROM unnest($1::text[]) AS word`,
    values: [query.words],
  });
  // A stop word has no lexeme: it matches nothing, so it is left out.
  const searched = lexemes.filter((row) => row.lexemes !== null);
  if (searched.length === 0) return [];
  const rare = searched.filter((row) => (known.get(row.lexemes ?? '') ?? 0) <= COMMON_SHARE).map((row) => row.word);
  if (rare.length > 0) return found(client, query, rare.join(' | '), 'ranked');
  // Common words only: the newest holding every word, then the newest holding any.
  const words = searched.map((row) => row.word);
  const every = await found(client, query, words.join(' & '), 'newest');
  if (every.length >= query.limit || words.length === 1) return every;
  const seen = new Set(every.map((memory) => memory.id));
  const any = await found(client, query, words.join(' | '), 'newest');
  return [...every, ...any.filter((memory) => !seen.has(memory.id))].slice(0, query.limit);
}

async function found(
  client: pg.ClientBase,
  query: MemoryQuery,
  tsquery: string,
  order: 'ranked' | 'newest',
): Promise<FoundMemory[]> {
  const { rows } = await client.query<MemoryColumns & { score: number }>({
    name: `wardrik_search_memories_${order}_v1`,
    text: `SELECT ${COLUMNS}, ts_rank_cd(search, q) AS score
           FROM memories, to_tsquery('english'::regconfig, $3) q
           WHERE app = $1 AND principal = $2 AND search @@ q
           ORDER BY ${order === 'ranked' ? 'score DESC, at DESC' : 'at DESC'} LIMIT $4`,
    values: [query.app, query.principal, tsquery, query.limit],
  });
  return rows.map((row) => ({ ...memoryFrom(row), score: Number(row.score) }));
}

export async function memoryEmbeddings(
  client: pg.ClientBase,
  app: string,
  principal: string,
): Promise<{ id: string; embedding: Float32Array }[]> {
  const { rows } = await client.query<{ id: string; embedding: Buffer }>(
    'SELECT id, embedding FROM memories WHERE app = $1 AND principal = $2 AND embedding IS NOT NULL',
    [app, principal],
  );
  return rows.map((row) => ({ id: row.id, embedding: embeddingFrom(row.embedding) }));
}

export async function getMemories(
  client: pg.ClientBase,
  ids: readonly string[],
): Promise<Omit<StoredMemory, 'embedding'>[]> {
  const { rows } = await client.query<MemoryColumns>(`SELECT ${COLUMNS} FROM memories WHERE id = ANY($1)`, [ids]);
  return rows.map(memoryFrom);
}

export async function deleteMemories(client: pg.ClientBase, filter: MemoryFilter): Promise<number> {
  const { rowCount } = await client.query(
    'DELETE FROM memories WHERE app = $1 AND principal = $2 AND ($3::text IS NULL OR session_id = $3)',
    [filter.app, filter.principal, filter.sessionId ?? null],
  );
  return rowCount ?? 0;
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
    at: Number(row.at),
  };
}
