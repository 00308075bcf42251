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
  /**
   * Whether a lease nobody renews expires (shared stores, and the memory store, which plays one).
   * A SQLite file belongs to one process, which has nobody to hand a run to: its leases change
   * hands only when released.
   */
  readonly leasesExpire: boolean;
}

/** Every adapter the store contract runs on. */
export const storeFactories: readonly StoreFactory[] = [
  {
    name: 'SqliteStore',
    open: () => sqliteStore(join(mkdtempSync(join(tmpdir(), 'wardrik-store-')), 'wardrik.db')),
    leasesExpire: false,
  },
  { name: 'MemoryStore', open: () => memoryStore(), leasesExpire: true },
];
