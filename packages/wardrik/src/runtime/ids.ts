import { randomFillSync } from 'node:crypto';

/**
 * A new id for a row the store keys and indexes by it (a run, a park, a session): `prefix_` then a
 * UUID version 7 (RFC 9562): 48 bits of the time in ms, then 74 random bits.
 *
 * Time first, so that ids made one after another sort together: a new run's journal records and
 * its row go in at the end of the `(run_id, seq)` and `id` indexes, in pages already in the cache,
 * instead of in a random page of an index that grows with every run ever made (version 4 ids: once
 * the index outgrows the page cache, every insert reads a page back, and every commit writes more
 * pages to the WAL). 74 random bits keep ids unguessable and unique; ids made in the same ms are
 * not ordered among themselves, and need not be.
 *
 * @example
 * ```ts
 * timeOrderedId('run') // 'run_019ad5c2-7f3e-7a41-9c2d-5b8e0f4a1d63'
 * ```
 */
export function timeOrderedId(prefix: string, now: number = Date.now()): string {
  const bytes = new Uint8Array(16);
  let time = now;
  for (let index = 5; index >= 0; index--) {
    bytes[index] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes.set(randomBytesFromPool(10), 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70; // version 7
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80; // variant 10
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${prefix}_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Random bytes, drawn from the system's generator a few kB at a time (one draw per id costs ~2 µs or more). */
const POOL_SIZE = 4096;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;

function randomBytesFromPool(count: number): Uint8Array {
  if (poolOffset + count > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}
