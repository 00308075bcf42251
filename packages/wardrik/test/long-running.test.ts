import { OUTSIDE, started, type Tool, tool, toolset } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, ParkNotFoundError, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath, until } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

const submitted: string[] = [];
/** Starts a translation job and returns at once; the result comes later, by handle. */
function translateTool(options: { deadlineMs?: number; onSubmit?: (job: string) => void } = {}) {
  return tool({
    name: 'translate',
    description: 'Translates a document (takes minutes).',
    schema: { document: { type: 'string', required: true } },
    annotations: { idempotent: true },
    run: ({ document }, context) => {
      const job = `job-${context.idempotencyKey}`;
      submitted.push(job);
      options.onSubmit?.(job);
      return started(`translating ${document}`, {
        handle: job,
        labels: [OUTSIDE],
        ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
      });
    },
  });
}

function translator(translate: ReturnType<typeof translateTool>) {
  return defineAgent({
    name: 'translator',
    instructions: 'Translate.',
    tools: [translate],
    model: new ScriptedModel([
      { toolCalls: [{ name: 'translate', arguments: { document: 'contract.pdf' } }] },
      (request) => ({ text: `result: ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
    ]),
  });
}

/** The run once it has ended (`wait` answers at once while it is parked). */
async function ended(runId: string) {
  // A generous bound: only a run that never ends fails here, however slow the machine.
  await until(
    async () => ['completed', 'failed', 'cancelled'].includes((await wardrik!.getRunSummary(runId)).status),
    120_000,
  );
  return wardrik!.wait(runId);
}

describe('long-running tools', () => {
  it('a run waits for the work a tool started, holding no memory, until its result comes by handle', async () => {
    submitted.length = 0;
    wardrik = await openWardrik(tempDbPath(), [translator(translateTool())]);
    const parked = await wardrik.run('translator', 'translate the contract');
    expect(parked.status).toBe('parked');
    const park = parked.parks[0]!;
    expect(park).toMatchObject({ kind: 'external', reason: 'translating contract.pdf', handle: submitted[0] });
    await expect(wardrik.answerPark(park.id, { type: 'approve' }, { callHash: park.callHash })).rejects.toThrow(
      'a external park takes one of answer, fail',
    );
    const done = await wardrik.completeExternal(submitted[0]!, { value: { url: 'https://files/contract-fr.pdf' } });
    expect(done).toEqual({ parkId: park.id, runId: parked.runId });
    const result = await ended(parked.runId);
    expect(result.output).toBe('result: {"url":"https://files/contract-fr.pdf"}');
    // The result carries the labels the tool's started answer gave.
    expect(result.labels).toEqual([OUTSIDE]);
    await expect(wardrik.completeExternal(submitted[0]!, { value: 1 }, { waitMs: 50 })).rejects.toThrow(
      ParkNotFoundError,
    );
  });

  it('is completed from outside after a restart', async () => {
    submitted.length = 0;
    const path = tempDbPath();
    wardrik = await openWardrik(path, [translator(translateTool())]);
    const parked = await wardrik.run('translator', 'translate the contract');
    expect(parked.status).toBe('parked');
    await wardrik.close();
    wardrik = await openWardrik(path, [translator(translateTool())]);
    await wardrik.completeExternal(submitted[0]!, { error: 'the translator is out of credits' });
    const result = await ended(parked.runId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'result: {"error":"the work it started did not finish: the translator is out of credits"}',
    );
    expect(submitted).toHaveLength(1);
  });

  it('takes a result that comes before the run has parked (the work finished at once)', async () => {
    submitted.length = 0;
    let completed: Promise<{ parkId: string; runId: string }> | undefined;
    const translate = translateTool({
      onSubmit: (job) => {
        completed = wardrik!.completeExternal(job, { value: 'done at once' });
      },
    });
    wardrik = await openWardrik(tempDbPath(), [translator(translate)]);
    const { runId } = await wardrik.start('translator', 'translate the contract');
    const result = await ended(runId);
    expect(result.output).toBe('result: "done at once"');
    expect((await completed)?.runId).toBe(runId);
  });

  it('ends the wait at its deadline, and the model is told', async () => {
    submitted.length = 0;
    wardrik = await openWardrik(tempDbPath(), [translator(translateTool({ deadlineMs: 100 }))]);
    const parked = await wardrik.run('translator', 'translate the contract');
    expect(parked.parks[0]?.deadline).toBeGreaterThan(parked.parks[0]!.createdAt);
    const result = await ended(parked.runId);
    expect(result.output).toContain('the work it started did not finish: no result came within its deadline');
    const answered = (await wardrik.getRun(parked.runId)).journal.find((each) => each.record.type === 'park-answered');
    expect(answered?.record).toMatchObject({ by: 'wardrik (deadline)', decision: { type: 'fail' } });
  });

  it('a deadline set before a restart still ends the wait after it', async () => {
    submitted.length = 0;
    const path = tempDbPath();
    wardrik = await openWardrik(path, [translator(translateTool({ deadlineMs: 300 }))]);
    const parked = await wardrik.run('translator', 'translate the contract');
    await wardrik.close();
    wardrik = await openWardrik(path, [translator(translateTool({ deadlineMs: 300 }))]);
    const result = await ended(parked.runId);
    expect(result.output).toContain('no result came within its deadline');
  });

  it('a person (or another system) may answer the park as any: bound to its callHash', async () => {
    submitted.length = 0;
    wardrik = await openWardrik(tempDbPath(), [translator(translateTool())]);
    const parked = await wardrik.run('translator', 'translate the contract');
    const park = parked.parks[0]!;
    await wardrik.answerPark(
      park.id,
      { type: 'answer', value: 'typed by hand' },
      { callHash: park.callHash, by: 'ops' },
    );
    expect((await wardrik.wait(parked.runId)).output).toBe('result: "typed by hand"');
  });

  it('refuses a bad handle or outcome, naming it', async () => {
    wardrik = await openWardrik(tempDbPath(), [translator(translateTool())]);
    await expect(wardrik.completeExternal('', { value: 1 })).rejects.toThrow('handle: expected a string of 1–256');
    await expect(wardrik.completeExternal('h', {} as never)).rejects.toThrow('outcome: expected { value } or { error');
    expect(() => started('x', { handle: '' })).toThrow('started: handle must be a string of 1–256 characters');
    expect(() => started('x', { handle: 'h', deadlineMs: -1 })).toThrow('deadlineMs must be a positive number');
  });
});

describe('long-running work a tool watches itself', () => {
  it("a tool's own completion callback delivers the result through its context", async () => {
    const watched = tool({
      name: 'watched',
      description: 'Starts work and watches it.',
      annotations: { idempotent: true },
      run: (_args, context) => {
        const handle = `watch-${context.idempotencyKey}`;
        setTimeout(() => void context.completeExternal(handle, { value: 'finished in the background' }), 30);
        return started('working', { handle });
      },
    });
    const agent = defineAgent({
      name: 'watcher',
      instructions: '',
      tools: [watched],
      model: new ScriptedModel([
        { toolCalls: [{ name: 'watched' }] },
        (request) => ({ text: `got ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
      ]),
    });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const { runId } = await wardrik.start('watcher', 'go');
    expect((await ended(runId)).output).toBe('got "finished in the background"');
  });

  it('after a restart, a toolset that watches its own work is handed the handles runs wait for (NAME:…)', async () => {
    const resumed: string[][] = [];
    const jobs = (resume: boolean) =>
      toolset({
        name: 'jobs',
        tools: () => [
          tool({
            name: 'submit',
            description: 'Submits a job.',
            annotations: { idempotent: true },
            run: () => started('queued', { handle: 'jobs:42' }),
          }) as unknown as Tool<never>,
        ],
        ...(resume
          ? {
              resume: ({ handles, completeExternal }) => {
                resumed.push([...handles]);
                for (const handle of handles) void completeExternal(handle, { value: `done ${handle}` });
              },
            }
          : {}),
      });
    const agent = (resume: boolean) =>
      defineAgent({
        name: 'submitter',
        instructions: '',
        toolsets: [jobs(resume)],
        model: new ScriptedModel([
          { toolCalls: [{ name: 'submit' }] },
          (request) => ({ text: `got ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
        ]),
      });
    const path = tempDbPath();
    wardrik = await openWardrik(path, [agent(false)]);
    const parked = await wardrik.run('submitter', 'go');
    expect(parked.parks[0]).toMatchObject({ kind: 'external', handle: 'jobs:42' });
    await wardrik.close();
    wardrik = await openWardrik(path, [agent(true)]);
    expect(resumed).toEqual([['jobs:42']]);
    expect((await ended(parked.runId)).output).toBe('got "done jobs:42"');
  });
});
