import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStore } from '../src/store/memory-store.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';

/** A store adapter the contract tests run on: opens a fresh, empty store. */
export interface StoreFactory {
  readonly name: string;
  open(): Store | Promise<Store>;
}

/** Every adapter the store contract runs on. */
export const storeFactories: readonly StoreFactory[] = [
  { name: 'SqliteStore', open: () => sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-store-')), 'wardrik.db')) },
  { name: 'MemoryStore', open: () => memoryStore() },
];
