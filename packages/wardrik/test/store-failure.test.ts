/*
 * Crash-only (issue 11, item 3): a store that fails (a full disk, an I/O error) used to die
 * silently — every wait() hung, the API answered 500 to everything and /v1/health said ok. Now the
 * runtime stops taking work, pending waits reject with the StoreError, and health answers 503.
 * (`serve-store.test.ts` plays the whole thing with real processes and a real full disk.)
 */
import { tool } from '@wardrik/core';
import { afterEach, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, StoreError, type Wardrik } from '../src/index.js';
import { createApp } from '../src/server/app.js';
import { MemoryStore, ScriptedModel } from '../src/testing/index.js';

let wardrik: Wardrik | undefined;
afterEach(async () => wardrik?.close());

const never = tool({ name: 'slow', description: 'Never answers.', run: () => new Promise(() => {}) });

it('a failed store stops the runtime: waits reject, new work is refused, health answers 503', async () => {
  const store = new MemoryStore();
  const model = new ScriptedModel(() => ({ toolCalls: [{ name: 'slow', arguments: {} }] }));
  wardrik = await createWardrik({
    store,
    agents: [defineAgent({ name: 'a', instructions: '', model, tools: [never] })],
  });
  const app = createApp({ wardrik, auth: new AuthService(store) });
  expect((await app.request('/v1/health')).status).toBe(200);
  const heard: StoreError[] = [];
  wardrik.onFailure((error) => heard.push(error));

  const { runId } = await wardrik.start('a', 'go');
  const waiting = wardrik.wait(runId);
  await new Promise((resolve) => setTimeout(resolve, 10)); // the call is in flight
  const diskFull = new StoreError('writing to disk failed: SQLITE_FULL');
  store.fail(diskFull);

  await expect(waiting).rejects.toBe(diskFull);
  expect(wardrik.failure).toBe(diskFull);
  expect(heard).toEqual([diskFull]);
  expect(wardrik.activeRuns).toBe(0);
  await expect(wardrik.start('a', 'again')).rejects.toThrow(/the store failed, so this Wardrik takes no more work/);
  await expect(wardrik.cancel(runId)).rejects.toSatisfy((thrown) => StoreError.isInstance(thrown));
  await expect(wardrik.wait(runId)).rejects.toSatisfy((thrown) => StoreError.isInstance(thrown));

  const health = await app.request('/v1/health');
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({ status: 503, title: 'Store failed' });
  // A listener added after the failure still hears of it.
  const late = await new Promise<StoreError>((resolve) => wardrik?.onFailure(resolve));
  expect(late).toBe(diskFull);
});
