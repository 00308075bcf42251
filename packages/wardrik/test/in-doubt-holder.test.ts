/*
 * A call found in doubt after another process took its run over: the park says which node started
 * it and lost the run; a `retry` while that node may still finish the call (paused past its lease,
 * not stopped) is refused unless the person says they checked it stopped; and every attempt gets
 * a fencing token that a later attempt (on any node) always exceeds. On a store one process holds
 * (SQLite), the previous holder is gone for sure: retry is taken as is.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWardrik,
  defineAgent,
  InvalidParkAnswerError,
  type ModelRequest,
  type Store,
  sqliteStore,
  type Wardrik,
} from '../src/index.js';
import { MemoryStore, ScriptedModel } from '../src/testing/index.js';
import { until } from './helpers.js';

/** Each attempt of `pay`: the node's process it ran in (by its runtime) and its fencing token. */
const attempts: Array<{ token: number | undefined }> = [];
let hang = true;
function agent() {
  const pay = tool({
    name: 'pay',
    description: 'Pays (not safe to repeat).',
    run: (_args, context) => {
      attempts.push({ token: context.fencingToken });
      return hang ? new Promise<string>(() => {}) : 'paid';
    },
  });
  return defineAgent({
    name: 'clerk',
    instructions: '',
    tools: [pay],
    model: new ScriptedModel((request: ModelRequest) =>
      request.messages.at(-1)?.role === 'tool' ? { text: 'done' } : { toolCalls: [{ name: 'pay' }] },
    ),
  });
}

const opened: Wardrik[] = [];
afterEach(async () => {
  for (const each of opened.splice(0)) await each.close().catch(() => {});
  attempts.length = 0;
  hang = true;
});

async function open(store: Store, node: string, leaseMs: number): Promise<Wardrik> {
  const wardrik = await createWardrik({ store, agents: [agent()], node, leaseMs, claimIntervalMs: 20 });
  opened.push(wardrik);
  return wardrik;
}

describe('an in-doubt call another node started', () => {
  it('names that node; a retry is refused until the person says it stopped; the retry’s fencing token is higher', async () => {
    let clock = 1_000_000;
    const store = new MemoryStore({ now: () => clock });
    const a = await open(store, 'a', 60_000);
    const { runId } = await a.start('clerk', 'pay the invoice');
    await until(() => attempts.length === 1);
    clock += 120_000; // A is paused past its lease (it renews only every 20 s)
    const b = await open(store, 'b', 60_000);
    const parked = await b.wait(runId);
    expect(parked.status).toBe('parked');
    const [doubt] = parked.parks;
    expect(doubt).toMatchObject({ kind: 'in_doubt', holder: { node: 'a', epoch: 1 } });
    expect(doubt?.holder?.startedAt).toBeTypeOf('number');
    expect(doubt?.reason).toContain('node a (lease epoch 1) started it');

    const refused = await b.answerPark(doubt!.id, { type: 'retry' }, { callHash: doubt!.callHash }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(InvalidParkAnswerError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain('node a (lease epoch 1) started');
    expect((refused as Error).message).toContain('previousHolderStopped: true');
    expect((await b.listParks({ status: 'open' })).map((park) => park.id)).toEqual([doubt!.id]);
    // Answering it "it ran" or "fail" needs no such check: only a retry can run it twice.
    hang = false;
    await b.answerPark(
      doubt!.id,
      { type: 'retry', previousHolderStopped: true, note: 'checked: a is gone' },
      { callHash: doubt!.callHash },
    );
    expect((await b.wait(runId)).status).toBe('completed');
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts;
    expect(first?.token).toBeTypeOf('number');
    expect(second?.token).toBeGreaterThan(first?.token as number);
  });

  it('on SQLite the previous holder is another process that is gone: retry is taken as is', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'wardrik-holder-')), 'wardrik.db');
    const before = await createWardrik({ store: sqliteStore(path), agents: [agent()], node: 'a' });
    const { runId } = await before.start('clerk', 'pay the invoice');
    await until(() => attempts.length === 1);
    await before.close(); // the process stops with the call under way
    hang = false;
    const after = await open(sqliteStore(path), 'a', 60_000);
    await until(async () => (await after.listParks({ status: 'open' })).length === 1);
    const [doubt] = await after.listParks({ status: 'open' });
    expect(doubt).toMatchObject({ kind: 'in_doubt', holder: { node: 'a' } });
    await after.answerPark(doubt!.id, { type: 'retry' }, { callHash: doubt!.callHash });
    expect((await after.wait(runId)).status).toBe('completed');
    expect(attempts.map((each) => each.token)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(attempts[1]!.token).toBeGreaterThan(attempts[0]!.token as number);
  });

  it('a call in doubt on the node that started it (its tool timed out) has no previous holder to wait for', async () => {
    const slow = tool({
      name: 'pay',
      description: 'Pays (not safe to repeat).',
      annotations: { timeout: 20 },
      run: () => new Promise<string>(() => {}),
    });
    const clerk = defineAgent({
      name: 'clerk',
      instructions: '',
      tools: [slow],
      model: new ScriptedModel((request: ModelRequest) =>
        request.messages.at(-1)?.role === 'tool' ? { text: 'done' } : { toolCalls: [{ name: 'pay' }] },
      ),
    });
    const wardrik = await createWardrik({ store: new MemoryStore(), agents: [clerk] });
    opened.push(wardrik);
    const parked = await wardrik.run('clerk', 'pay');
    const [doubt] = parked.parks;
    expect(doubt?.kind).toBe('in_doubt');
    expect(doubt?.holder).toBeUndefined();
    await wardrik.answerPark(doubt!.id, { type: 'fail', reason: 'stop' }, { callHash: doubt!.callHash });
    expect((await wardrik.wait(parked.runId)).status).toBe('completed');
  });
});
