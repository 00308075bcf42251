/*
 * An MCP task that asks for input (`input_required`): server-everything's research tool, asked
 * an ambiguous question, elicits a clarification through `tasks/result`. The run waiting for the
 * task shows the question as an `input` park of the call that started the task; a person's answer
 * goes back to the server, and the task's report says what they chose.
 */
import { fileURLToPath } from 'node:url';
import { type InputReply, started, type Toolset, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, mcpToolset, ParkNotFoundError, type ParkRow, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath, until } from './helpers.js';

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

function researcher(toolset: Toolset) {
  return defineAgent({
    name: 'researcher',
    instructions: 'Research.',
    toolsets: [toolset],
    model: new ScriptedModel([
      { toolCalls: [{ name: 'everything__simulate-research-query', arguments: { topic: 'python', ambiguous: true } }] },
      (request) => ({ text: `got ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
    ]),
  });
}

async function openPark(runId: string, kind: ParkRow['kind']): Promise<ParkRow> {
  let found: ParkRow | undefined;
  await until(async () => {
    found = (await wardrik!.listParks({ runId, status: 'open', kind }))[0];
    return found !== undefined;
  }, 60_000);
  return found!;
}

describe('an MCP task that needs input asks a person through the run waiting for it', () => {
  it("server-everything's research task asks for a clarification: an input park of the call; the answer reaches the task", async () => {
    const everything = mcpToolset({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });
    wardrik = await openWardrik(tempDbPath(), [researcher(everything)]);
    const first = await wardrik.run('researcher', 'research python');
    const approval = first.parks[0]!;
    expect(approval.kind).toBe('approval');
    await wardrik.answerPark(approval.id, { type: 'approve' }, { callHash: approval.callHash });
    const work = await openPark(first.runId, 'external');
    const question = await openPark(first.runId, 'input');
    expect(question.call?.callId).toBe(work.call?.callId);
    expect(question.reason).toContain('could have multiple interpretations');
    expect(question.details).toMatchObject({
      mode: 'form',
      schema: { type: 'object', required: ['interpretation'] },
    });
    // Still waiting for the task: the run is parked on it, the question open beside it.
    expect((await wardrik.getRunSummary(first.runId)).status).toBe('parked');
    await expect(
      wardrik.answerPark(
        question.id,
        { type: 'answer', value: { interpretation: 'reptile' } },
        { callHash: question.callHash },
      ),
    ).rejects.toThrow(/interpretation/);
    await wardrik.answerPark(
      question.id,
      { type: 'answer', value: { interpretation: 'snake' } },
      { callHash: question.callHash, by: 'pia' },
    );
    await until(async () => (await wardrik!.getRunSummary(first.runId)).status === 'completed', 60_000);
    const result = await wardrik.wait(first.runId);
    expect(result.output).toContain('# Research Report: python (snake)');
    expect(await wardrik.getPark(question.id)).toMatchObject({ status: 'answered', answeredBy: 'pia' });
  }, 90_000);

  it('requestInputFor refuses a handle no run waits for, and a malformed question, naming the problem', async () => {
    const noop = tool({ name: 'noop', description: 'Nothing.', run: () => 'ok' });
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'idle', instructions: '', tools: [noop], model: new ScriptedModel([{ text: 'hi' }]) }),
    ]);
    await expect(
      wardrik.requestInputFor('nobody:1', { mode: 'form', message: 'Which?', schema: { type: 'object' } }),
    ).rejects.toThrow(ParkNotFoundError);
    await expect(
      wardrik.requestInputFor('nobody:1', { mode: 'url', message: 'Open', url: 'file:///etc/passwd' }),
    ).rejects.toThrow('question.url: expected an http or https URL');
  });

  it('a question asked for work by a process that stopped is withdrawn when the runtime starts again; asked again, it is answered', async () => {
    const path = tempDbPath();
    const translate = tool({
      name: 'translate',
      description: 'Starts a translation.',
      annotations: { idempotent: true },
      run: () => started('translating', { handle: 'job-7' }),
    });
    const agent = defineAgent({
      name: 'translator',
      instructions: '',
      tools: [translate],
      model: new ScriptedModel([{ toolCalls: [{ name: 'translate' }] }, { text: 'done' }]),
    });
    const question = { mode: 'form', message: 'Formal or informal?', schema: { type: 'object' } } as const;
    wardrik = await openWardrik(path, [agent]);
    const parked = await wardrik.run('translator', 'translate it');
    expect(parked.parks[0]?.kind).toBe('external');
    const asked = wardrik.requestInputFor('job-7', question).catch((thrown: Error) => thrown.message);
    const first = await openPark(parked.runId, 'input');
    await wardrik.close();
    expect(await asked).toBe('the runtime closed before a person answered');
    wardrik = await openWardrik(path, [agent]);
    await until(async () => (await wardrik!.getPark(first.id)).status === 'closed', 60_000);
    // The work asks again: a new question, answered; the reply reaches this process.
    const again = wardrik.requestInputFor('job-7', question);
    const second = await openPark(parked.runId, 'input');
    expect(second.id).not.toBe(first.id);
    await wardrik.answerPark(
      second.id,
      { type: 'answer', value: { register: 'formal' } },
      { callHash: second.callHash },
    );
    expect(await again).toEqual<InputReply>({ action: 'accept', content: { register: 'formal' } });
    // The work's result ends the wait; a question asked meanwhile would be withdrawn with it.
    const third = wardrik.requestInputFor('job-7', question);
    const open = await openPark(parked.runId, 'input');
    await wardrik.completeExternal('job-7', { value: 'traduit' });
    await expect(third).rejects.toThrow(/withdrawn/);
    expect((await wardrik.getPark(open.id)).status).toBe('closed');
    await until(async () => (await wardrik!.getRunSummary(parked.runId)).status === 'completed', 60_000);
  });
});
