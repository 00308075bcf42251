import type { Label } from '@wardrik/core';

/** A memory as stored: one message of a conversation, kept for the principal in the agent's app. */
export interface StoredMemory {
  /** `<runId>:<index>`: the same message is stored once, however often its session is added. */
  readonly id: string;
  readonly app: string;
  readonly principal: string;
  readonly sessionId?: string;
  readonly runId?: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  /** The labels the run carried when the message was said. */
  readonly labels: readonly Label[];
  /** When it was said, in ms since the epoch. */
  readonly at: number;
  /** Its embedding, when the memory service has an embedding function. */
  readonly embedding?: Float32Array;
}

/** A memory a search found, with how well it matched (higher is better). */
export type FoundMemory = Omit<StoredMemory, 'embedding'> & { readonly score: number };

/** A full-text search of one principal's memories in one app. */
export interface MemoryQuery {
  readonly app: string;
  readonly principal: string;
  /** The words to look for (letters and digits only, lower case, at least one): a memory matching more of them, and rarer ones, ranks first. */
  readonly words: readonly string[];
  readonly limit: number;
}

/** Which memories to forget. */
export interface MemoryFilter {
  readonly app: string;
  readonly principal: string;
  /** Only those of this session. */
  readonly sessionId?: string;
}

/**
 * Memories, with full-text search: SQLite FTS5 ranked by BM25 on the SQLite store, PostgreSQL
 * full-text search (`ts_rank_cd`) on the PostgreSQL store, a small scorer in memory.
 */
export interface MemoryIndex {
  /** Stores memories; one whose id is stored already is left as it is. Resolves to how many were new, once durable. */
  addMemories(memories: readonly StoredMemory[]): Promise<number>;
  /** Which of `ids` are stored. */
  knownMemories(ids: readonly string[]): Promise<string[]>;
  /** The best matches of a full-text search, best first. */
  searchMemories(query: MemoryQuery): Promise<FoundMemory[]>;
  /** The embeddings of a principal's memories in an app (those that have one). */
  memoryEmbeddings(
    app: string,
    principal: string,
  ): Promise<{ readonly id: string; readonly embedding: Float32Array }[]>;
  /** The memories with these ids (in no particular order). */
  getMemories(ids: readonly string[]): Promise<Omit<StoredMemory, 'embedding'>[]>;
  /** Forgets memories; resolves to how many. */
  deleteMemories(filter: MemoryFilter): Promise<number>;
}

/** An embedding as bytes (little-endian float32), for a BLOB or bytea column. */
export function embeddingBytes(embedding: Float32Array): Buffer {
  const bytes = Buffer.alloc(embedding.length * 4);
  for (let index = 0; index < embedding.length; index++) bytes.writeFloatLE(embedding[index] as number, index * 4);
  return bytes;
}

/** An embedding read back from {@link embeddingBytes}. */
export function embeddingFrom(bytes: Uint8Array): Float32Array {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const embedding = new Float32Array(bytes.byteLength / 4);
  for (let index = 0; index < embedding.length; index++) embedding[index] = buffer.readFloatLE(index * 4);
  return embedding;
}
