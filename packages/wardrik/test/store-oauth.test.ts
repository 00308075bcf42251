import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredOAuthCredential } from '../src/store/oauth-store.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { storeFactories } from './store-factories.js';

function credential(extra: Partial<StoredOAuthCredential> = {}): StoredOAuthCredential {
  return {
    server: 'mcp:search https://mcp.example.com/mcp',
    principal: '',
    kind: 'tokens',
    value: 'v1.sealed-bytes',
    updatedAt: 1000,
    ...extra,
  };
}

describe.each(storeFactories)('$name: OAuth credentials', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    store = await open();
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
  });

  it('keeps a credential by server, principal and kind, and replaces it under the same key', async () => {
    const key = { server: credential().server, principal: '', kind: 'tokens' } as const;
    expect(await store.getOAuthCredential(key)).toBeUndefined();
    await store.putOAuthCredential(credential());
    expect(await store.getOAuthCredential(key)).toEqual(credential());
    await store.putOAuthCredential(credential({ value: 'v1.refreshed', updatedAt: 2000 }));
    expect(await store.getOAuthCredential(key)).toEqual(credential({ value: 'v1.refreshed', updatedAt: 2000 }));
  });

  it('keeps the principals, kinds and servers apart', async () => {
    await store.putOAuthCredential(credential({ principal: 'alice', value: 'a' }));
    await store.putOAuthCredential(credential({ principal: 'bob', value: 'b' }));
    await store.putOAuthCredential(credential({ principal: '', kind: 'client', value: 'shared client' }));
    await store.putOAuthCredential(
      credential({ server: 'mcp:other https://other.example/mcp', principal: 'alice', value: 'o' }),
    );
    const server = credential().server;
    expect((await store.getOAuthCredential({ server, principal: 'alice', kind: 'tokens' }))?.value).toBe('a');
    expect((await store.getOAuthCredential({ server, principal: 'bob', kind: 'tokens' }))?.value).toBe('b');
    expect(await store.getOAuthCredential({ server, principal: '', kind: 'tokens' })).toBeUndefined();
    expect(await store.getOAuthCredential({ server, principal: 'alice', kind: 'client' })).toBeUndefined();
    expect((await store.getOAuthCredential({ server, principal: '', kind: 'client' }))?.value).toBe('shared client');
  });

  it('deletes by principal and kind, and says how many it deleted', async () => {
    const server = credential().server;
    const other = 'mcp:other https://other.example/mcp';
    await store.putOAuthCredential(credential({ principal: 'alice' }));
    await store.putOAuthCredential(credential({ principal: 'alice', kind: 'pending' }));
    await store.putOAuthCredential(credential({ principal: 'bob' }));
    await store.putOAuthCredential(credential({ principal: '', kind: 'client' }));
    await store.putOAuthCredential(credential({ server: other, principal: 'alice' }));

    expect(await store.deleteOAuthCredentials({ server, principal: 'alice', kinds: ['tokens'] })).toBe(1);
    expect(await store.getOAuthCredential({ server, principal: 'alice', kind: 'tokens' })).toBeUndefined();
    expect(await store.getOAuthCredential({ server, principal: 'alice', kind: 'pending' })).toBeDefined();
    expect(await store.deleteOAuthCredentials({ server, kinds: ['tokens', 'pending'] })).toBe(2);
    expect(await store.getOAuthCredential({ server, principal: '', kind: 'client' })).toBeDefined();
    expect(await store.deleteOAuthCredentials({ server, principal: '' })).toBe(1);
    expect(await store.deleteOAuthCredentials({ server })).toBe(0);
    // Another server's credentials are untouched.
    expect(await store.getOAuthCredential({ server: other, principal: 'alice', kind: 'tokens' })).toBeDefined();
  });

  it('refuses a time that is not an integer of ms', async () => {
    await expect(store.putOAuthCredential(credential({ updatedAt: 1.5 }))).rejects.toThrow(
      /updatedAt must be an integer/,
    );
  });
});

describe('SqliteStore: OAuth credentials on disk', () => {
  it('are still there after the file is closed and opened again', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'wardrik-oauth-')), 'wardrik.db');
    const first = sqliteStore(path);
    await first.migrate();
    await first.putOAuthCredential(credential({ principal: 'alice' }));
    await first.close();
    const second = sqliteStore(path);
    try {
      expect(
        await second.getOAuthCredential({ server: credential().server, principal: 'alice', kind: 'tokens' }),
      ).toEqual(credential({ principal: 'alice' }));
    } finally {
      await second.close();
    }
  });
});
