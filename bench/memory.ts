// Memory search latency (issue 15): wardrik.memory.search over 100,000 memories of one principal
// (the hardest case for a per-owner index), on SQLite FTS5 (target p50 ≤ 5 ms) and PostgreSQL
// full-text search; each next to a floor measured in the same run: one indexed point read of a
// memory through the same store. Run with `npm run bench -- memory`.
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createWardrik,
  defineAgent,
  postgresStore,
  type Store,
  type StoredMemory,
  sqliteStore,
  type Wardrik,
} from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { DATABASE_URL, dropSchema, schemaName, withClient } from './postgres-db.js';
import { percentile, table } from './stats.js';

const MEMORIES = Number(process.env.MEMORY_COUNT ?? '100000');
const QUERIES = Number(process.env.MEMORY_QUERIES ?? '500');
const TARGET_P50_MS = 5;

/** A deterministic generator (mulberry32), so every run searches the same corpus with the same queries. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A vocabulary of 20,000 made-up words drawn by Zipf's law (a few are everywhere, most are rare), as in real text. */
function vocabulary(next: () => number): () => string {
  const syllables = ['ka', 'lo', 'mi', 're', 'tu', 'sa', 'ne', 'po', 'di', 'ga', 'vo', 'shi', 'ber', 'an', 'or'];
  const words = Array.from({ length: 20_000 }, (_, index) => {
    let word = '';
    for (let n = index + 1; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
    return word;
  });
  const weights = words.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const cumulative: number[] = [];
  let running = 0;
  for (const weight of weights) {
    running += weight / total;
    cumulative.push(running);
  }
  return () => {
    const target = next();
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return words[low] as string;
  };
}

function corpus(): { memories: StoredMemory[]; queries: string[] } {
  const next = random(15);
  const word = vocabulary(next);
  const sentence = (length: number) => Array.from({ length }, word).join(' ');
  const memories = Array.from(
    { length: MEMORIES },
    (_, index): StoredMemory => ({
      id: `run_${Math.floor(index / 10)}:${index % 10}`,
      app: 'shop',
      principal: 'alice',
      sessionId: `ses_${Math.floor(index / 100)}`,
      runId: `run_${Math.floor(index / 10)}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      text: sentence(8 + Math.floor(next() * 25)),
      labels: index % 7 === 0 ? ['outside'] : [],
      at: 1_700_000_000_000 + index,
    }),
  );
  const queries = Array.from({ length: QUERIES }, () => sentence(2 + Math.floor(next() * 3)));
  return { memories, queries };
}

const agent = defineAgent({ name: 'shop', instructions: '', model: new ScriptedModel(() => ({ text: '' })) });

async function measure(
  name: string,
  store: Store,
  data: ReturnType<typeof corpus>,
  afterLoad: () => Promise<unknown> = async () => {},
) {
  const wardrik: Wardrik = await createWardrik({ store, agents: [agent] });
  try {
    const loadStart = performance.now();
    for (let start = 0; start < data.memories.length; start += 2_000) {
      await store.addMemories(data.memories.slice(start, start + 2_000));
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    await afterLoad();
    const search: number[] = [];
    const floor: number[] = [];
    let found = 0;
    // Warm up, then alternate: a search, then the floor (a point read of one memory by id).
    for (const query of data.queries.slice(0, 20))
      await wardrik.memory.search({ agent: 'shop', principal: 'alice', query });
    for (const [index, query] of data.queries.entries()) {
      let start = performance.now();
      const results = await wardrik.memory.search({ agent: 'shop', principal: 'alice', query, limit: 5 });
      search.push(performance.now() - start);
      found += results.length;
      start = performance.now();
      await store.getMemories([data.memories[(index * 7919) % data.memories.length]?.id ?? '']);
      floor.push(performance.now() - start);
    }
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    return {
      store: name,
      memories: data.memories.length,
      'load (2,000 a batch)': `${loadSeconds.toFixed(1)} s`,
      'search p50': ms(percentile(search, 50)),
      'search p95': ms(percentile(search, 95)),
      'search p99': ms(percentile(search, 99)),
      'floor p50 (point read)': ms(percentile(floor, 50)),
      'results / query': (found / data.queries.length).toFixed(1),
      'target p50': `≤ ${TARGET_P50_MS} ms`,
    };
  } finally {
    await wardrik.close();
  }
}

/** For experiments: the corpus the benchmark searches. */
export { corpus };

export async function main(): Promise<void> {
  console.log(`\n## Memory search (Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model})`);
  const data = corpus();
  const rows = [
    await measure(
      'SQLite (FTS5, BM25)',
      sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-bench-')), 'memory.db')),
      data,
    ),
  ];
  if (process.env.MEMORY_POSTGRES !== '0') {
    const schema = schemaName();
    try {
      // ANALYZE, as autovacuum does once a table grew by a tenth: the search reads its word frequencies.
      const analyze = () => withClient(schema, (client) => client.query('ANALYZE memories'));
      rows.push(
        await measure('PostgreSQL (tsvector, ts_rank_cd)', postgresStore(DATABASE_URL, { schema }), data, analyze),
      );
    } catch (error) {
      console.log(`(PostgreSQL left out: ${(error as Error).message})`);
    } finally {
      await dropSchema(schema).catch(() => {});
    }
  }
  table(
    `wardrik.memory.search, ${QUERIES} queries of 2–4 words (Zipf-distributed vocabulary of 20,000 words; memories of 8–32 words, all of one principal), limit 5`,
    rows,
  );
}
