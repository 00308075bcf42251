import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tool } from '@wardrik/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, RunNeedsAttentionError, StoreError, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath, until } from './helpers.js';

// A process that stops mid-call is simulated by close(): it stops driving without writing
// anything, exactly as a crash would leave the file. (Real SIGKILLs are in crash.test.ts.)
const executions: Array<{ tool: string; key: string }> = [];
let hang = true;
function makeTool(name: string, annotations: { readOnly?: boolean; idempotent?: boolean }) {
  return tool({
    name,
    description: name,
    annotations,
    run: (_args, context) => {
      executions.push({ tool: name, key: context.idempotencyKey });
      return hang ? new Promise(() => {}) : `${name} done`;
    },
  });
}
const tools = [
  makeTool('send_email', {}),
  makeTool('lookup', { readOnly: true }),
  makeTool('charge', { idempotent: true }),
];

function agentCalling(name: string) {
  const model = new ScriptedModel([
    { toolCalls: [{ name, arguments: {} }] },
    (request) => ({ text: JSON.stringify(lastToolResults(request)[0]?.content) }),
  ]);
  return defineAgent({ name: 'a', instructions: '', model, tools });
}

const opened: Wardrik[] = [];
async function open(path: string, name: string) {
  const wardrik = await openWardrik(path, [agentCalling(name)]);
  opened.push(wardrik);
  return wardrik;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  executions.length = 0;
  hang = true;
});

async function interruptedDuring(name: string) {
  const path = tempDbPath();
  const first = await open(path, name);
  const { runId } = await first.start('a', 'go');
  await until(() => executions.length === 1);
  await first.close();
  hang = false;
  return { path, runId };
}

describe('recovery', () => {
  it('parks a lost call that is not repeatable as in_doubt and never runs it again on its own', async () => {
    const { path, runId } = await interruptedDuring('send_email');
    const second = await open(path, 'send_email');
    const result = await second.wait(runId);
    expect(result.status).toBe('parked');
    expect(result.parks).toHaveLength(1);
    expect(result.parks[0]).toMatchObject({
      kind: 'in_doubt',
      call: { name: 'send_email', idempotencyKey: `${runId}:c1.0` },
    });
    expect(executions).toHaveLength(1);
  });

  it('in_doubt "it ran": the given answer goes to the model, the tool does not run again', async () => {
    const { path, runId } = await interruptedDuring('send_email');
    const second = await open(path, 'send_email');
    const [park] = (await second.wait(runId)).parks;
    await second.answerPark(park!.id, { type: 'answer', value: 'sent at 10:02' }, { callHash: park!.callHash });
    expect(await second.wait(runId)).toMatchObject({ status: 'completed', output: '"sent at 10:02"' });
    expect(executions).toHaveLength(1);
  });

  it('in_doubt "it did not run": runs it now, with the same idempotency key', async () => {
    const { path, runId } = await interruptedDuring('send_email');
    const second = await open(path, 'send_email');
    const [park] = (await second.wait(runId)).parks;
    await second.answerPark(park!.id, { type: 'retry' }, { callHash: park!.callHash });
    expect(await second.wait(runId)).toMatchObject({ status: 'completed', output: '"send_email done"' });
    expect(executions.map((each) => each.key)).toEqual([`${runId}:c1.0`, `${runId}:c1.0`]);
  });

  it('in_doubt "fail": the model gets an error', async () => {
    const { path, runId } = await interruptedDuring('send_email');
    const second = await open(path, 'send_email');
    const [park] = (await second.wait(runId)).parks;
    await second.answerPark(park!.id, { type: 'fail', reason: 'do not send twice' }, { callHash: park!.callHash });
    expect(await second.wait(runId)).toMatchObject({ status: 'completed', output: '{"error":"do not send twice"}' });
    expect(executions).toHaveLength(1);
  });

  it.each(['lookup', 'charge'])('repeats a lost %s call (repeatable) with the same idempotency key', async (name) => {
    const { path, runId } = await interruptedDuring(name);
    const second = await open(path, name);
    expect(await second.wait(runId)).toMatchObject({ status: 'completed', output: `"${name} done"` });
    expect(executions.map((each) => each.key)).toEqual([`${runId}:c1.0`, `${runId}:c1.0`]);
  });

  it('makes a lost model step again', async () => {
    const path = tempDbPath();
    let stepStarted = false;
    const slowModel = new ScriptedModel([{ text: 'never', delayMs: 60_000 }]);
    const original = slowModel.generate.bind(slowModel);
    slowModel.generate = (request, options) => {
      stepStarted = true;
      return original(request, options);
    };
    const first = await openWardrik(path, [defineAgent({ name: 'a', instructions: '', model: slowModel })]);
    const { runId } = await first.start('a', 'go');
    await until(() => stepStarted);
    await first.close();
    const fresh = new ScriptedModel([{ text: 'made again' }]);
    const second = await openWardrik(path, [defineAgent({ name: 'a', instructions: '', model: fresh })]);
    opened.push(second);
    expect(await second.wait(runId)).toMatchObject({ status: 'completed', output: 'made again' });
    expect(fresh.calls).toBe(1);
  });
});

describe('a run that cannot be loaded (issue 11, item 4)', () => {
  /** Two runs interrupted mid-call; then one journal record is changed by hand as `spoil` says. */
  async function twoInterrupted(spoil: (database: Database.Database, runId: string) => void) {
    const path = tempDbPath();
    const first = await open(path, 'lookup');
    const { runId: bad } = await first.start('a', 'go');
    const { runId: good } = await first.start('a', 'go');
    await until(() => executions.length === 2);
    await first.close();
    hang = false;
    const database = new Database(path);
    spoil(database, bad);
    database.close();
    return { path, bad, good };
  }
  const newerVersion = (database: Database.Database, runId: string) =>
    database.prepare(`UPDATE journal SET record = json_set(record, '$.v', 99) WHERE run_id = ? AND seq = 2`).run(runId);
  const notJson = (database: Database.Database, runId: string) =>
    database.prepare(`UPDATE journal SET record = '{"v":1,' WHERE run_id = ? AND seq = 2`).run(runId);

  it.each([
    ['a record of a newer format version', newerVersion, 'journal format version 99'],
    ['a record that is not JSON', notJson, 'not JSON'],
  ])('with %s: the others are recovered; it is marked with why, its journal untouched', async (_, spoil, why) => {
    const { path, bad, good } = await twoInterrupted(spoil);
    const before = readJournal(path, bad);
    const second = await open(path, 'lookup');
    expect(await second.wait(good)).toMatchObject({ status: 'completed' });
    const [row] = (await second.listRuns({ status: 'running' })).filter((run) => run.id === bad);
    expect(row?.attention).toContain(why);
    await expect(second.wait(bad)).rejects.toSatisfy((thrown) => RunNeedsAttentionError.isInstance(thrown));
    expect(readJournal(path, bad)).toEqual(before);
  });

  it('can be cancelled: its end is appended after its last record, nothing before it changes', async () => {
    const { path, bad } = await twoInterrupted(newerVersion);
    const before = readJournal(path, bad);
    const second = await open(path, 'lookup');
    const result = await second.cancel(bad, 'cannot be read here');
    expect(result).toMatchObject({ status: 'cancelled', error: 'cannot be read here' });
    const after = readJournal(path, bad);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(JSON.parse(after.at(-1) as string)).toMatchObject({ type: 'run-ended', status: 'cancelled' });
    const row = await second.getRunSummary(bad);
    expect(row.status).toBe('cancelled');
    expect(row.attention).toBeUndefined();
    await expect(second.cancel(bad)).rejects.toThrow(/has ended/);
  });
});

describe('a damaged database file (issue 11, item 5)', () => {
  it('is a StoreError naming the file and what to do, not a raw SqliteError', async () => {
    const path = tempDbPath();
    const first = await open(path, 'lookup');
    await first.close();
    // Keep the header, overwrite the pages after it: the file opens, then every read fails.
    const file = readFileSync(path);
    writeFileSync(path, Buffer.concat([file.subarray(0, 100), Buffer.alloc(file.length - 100, 0xa5)]));
    rmSync(`${path}-wal`, { force: true });
    const failure = await openWardrik(path, [agentCalling('lookup')]).catch((thrown: unknown) => thrown);
    expect(StoreError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain(path);
    expect((failure as Error).message).toMatch(/SQLITE_(CORRUPT|NOTADB)/);
    expect((failure as Error).message).toContain('Restore it from a backup');
  });
});

function readJournal(path: string, runId: string): string[] {
  const database = new Database(path, { readonly: true });
  try {
    const rows = database.prepare('SELECT record FROM journal WHERE run_id = ? ORDER BY seq').all(runId);
    return (rows as Array<{ record: string }>).map((row) => row.record);
  } finally {
    database.close();
  }
}
