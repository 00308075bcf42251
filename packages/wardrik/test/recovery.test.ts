import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, type Wardrik } from '../src/index.js';
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
