import { type InputReply, OUTSIDE, ok, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defineAgent,
  InvalidParkAnswerError,
  ParkAlreadyAnsweredError,
  type ParkRow,
  type Wardrik,
} from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath, until } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

const accountSchema = {
  type: 'object',
  properties: {
    account: { type: 'string' },
    currency: { type: 'string', default: 'EUR' },
  },
  required: ['account'],
} as const;

/** A refund tool that asks a person which account to use while it runs (as an MCP server's elicitation does). */
function refundTool(replies: InputReply[], options: { timeout?: number } = {}) {
  return tool({
    name: 'refund',
    description: 'Refunds an order to an account a person chooses.',
    schema: { order: { type: 'string', required: true } },
    annotations: options.timeout === undefined ? {} : { timeout: options.timeout },
    run: async ({ order }, context) => {
      const reply = await context.requestInput({
        mode: 'form',
        message: `Which account should the refund of ${order} go to?`,
        schema: accountSchema,
      });
      replies.push(reply);
      return reply.action === 'accept' ? ok({ refunded: order, to: reply.content }) : ok({ refunded: false });
    },
  });
}

function agentWith(refund: ReturnType<typeof refundTool>) {
  return defineAgent({
    name: 'clerk',
    instructions: 'Refund.',
    tools: [refund],
    model: new ScriptedModel([
      { toolCalls: [{ name: 'refund', arguments: { order: 'o-1' } }] },
      (request) => ({ text: `done ${JSON.stringify(lastToolResults(request)[0]?.content)}` }),
    ]),
  });
}

async function openQuestion(runId: string): Promise<ParkRow> {
  let found: ParkRow | undefined;
  await until(async () => {
    found = (await wardrik!.listParks({ runId, status: 'open', kind: 'input' }))[0];
    return found !== undefined;
  }, 60_000);
  return found!;
}

describe('a call asks a person while it runs (input parks)', () => {
  it('shows the question as an input park while the run keeps running; the answer, defaults filled in, reaches the call', async () => {
    const replies: InputReply[] = [];
    wardrik = await openWardrik(tempDbPath(), [agentWith(refundTool(replies))]);
    const opened: unknown[] = [];
    wardrik.hooks.on('park-opened', (event) =>
      opened.push({ kind: event.kind, tool: event.tool, parkId: event.parkId }),
    );
    const { runId } = await wardrik.start('clerk', 'refund o-1');
    const park = await openQuestion(runId);
    // Telemetry hears of it as of any park opened (wardrik_parks_opened_total{kind="input"}).
    expect(opened).toEqual([{ kind: 'input', tool: 'refund', parkId: park.id }]);
    expect(park).toMatchObject({
      kind: 'input',
      reason: 'Which account should the refund of o-1 go to?',
      details: { mode: 'form', schema: accountSchema },
      call: { name: 'refund', arguments: { order: 'o-1' } },
    });
    // The run does not stop for it: its call waits.
    expect((await wardrik.getRunSummary(runId)).status).toBe('running');

    // An answer that does not fit the schema is refused, naming the field; the park stays open.
    await expect(
      wardrik.answerPark(park.id, { type: 'answer', value: { account: 7 } }, { callHash: park.callHash }),
    ).rejects.toThrow(InvalidParkAnswerError);
    await expect(
      wardrik.answerPark(park.id, { type: 'answer', value: { account: 7 } }, { callHash: park.callHash }),
    ).rejects.toThrow(/account/);
    await expect(wardrik.answerPark(park.id, { type: 'approve' }, { callHash: park.callHash })).rejects.toThrow(
      'a input park takes one of answer, deny, stop',
    );
    expect((await wardrik.getPark(park.id)).status).toBe('open');

    await wardrik.answerPark(
      park.id,
      { type: 'answer', value: { account: 'A-1' } },
      { callHash: park.callHash, by: 'alice' },
    );
    const result = await wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(replies).toEqual([{ action: 'accept', content: { account: 'A-1', currency: 'EUR' } }]);
    expect(result.output).toBe('done {"refunded":"o-1","to":{"account":"A-1","currency":"EUR"}}');
    expect(await wardrik.getPark(park.id)).toMatchObject({ status: 'answered', answeredBy: 'alice' });
    // A second answer fails closed.
    await expect(wardrik.answerPark(park.id, { type: 'deny' }, { callHash: park.callHash })).rejects.toThrow(
      ParkAlreadyAnsweredError,
    );
    const types = (await wardrik.getRun(runId)).journal.map(({ record }) => record.type);
    expect(types).toEqual([
      'run-started',
      'model-step',
      'call-started',
      'input-requested',
      'park-answered',
      'call-answered',
      'model-step',
      'run-ended',
    ]);
  });

  it('declining or dismissing the question reaches the call as decline or cancel', async () => {
    const replies: InputReply[] = [];
    wardrik = await openWardrik(tempDbPath(), [agentWith(refundTool(replies))]);
    for (const [decision, reply] of [
      [{ type: 'deny', reason: 'not mine' }, { action: 'decline' }],
      [{ type: 'stop' }, { action: 'cancel' }],
    ] as const) {
      const { runId } = await wardrik.start('clerk', 'refund o-1');
      const park = await openQuestion(runId);
      await wardrik.answerPark(park.id, decision, { callHash: park.callHash });
      const result = await wardrik.wait(runId);
      // Dismissing the question is not stopping the run: the call goes on with the reply.
      expect(result.status).toBe('completed');
      expect(replies.at(-1)).toEqual(reply);
    }
  });

  it('a question whose call ends first is withdrawn, and an answer to it is refused', async () => {
    const replies: InputReply[] = [];
    wardrik = await openWardrik(tempDbPath(), [agentWith(refundTool(replies, { timeout: 300 }))]);
    const { runId } = await wardrik.start('clerk', 'refund o-1');
    const park = await openQuestion(runId);
    // The call times out (not repeatable, so it may have run: a person is asked about it).
    await until(async () => (await wardrik!.getPark(park.id)).status === 'closed', 60_000);
    const inDoubt = (await wardrik.listParks({ runId, status: 'open' }))[0];
    expect(inDoubt?.kind).toBe('in_doubt');
    await expect(
      wardrik.answerPark(park.id, { type: 'answer', value: { account: 'A-1' } }, { callHash: park.callHash }),
    ).rejects.toThrow(ParkAlreadyAnsweredError);
    const withdrawn = (await wardrik.getRun(runId)).journal.find(({ record }) => record.type === 'input-withdrawn');
    // Its timeout aborted the call's signal: the question went with it.
    expect(withdrawn?.record).toMatchObject({
      parkId: park.id,
      reason: 'the call stopped waiting (timed out after 300 ms)',
    });
    expect(replies).toEqual([]);
  });

  it('after a restart the question is withdrawn and the call that asked is in doubt, never run again on its own', async () => {
    const path = tempDbPath();
    let runs = 0;
    const asking = tool({
      name: 'refund',
      description: 'Refunds an order.',
      schema: { order: { type: 'string', required: true } },
      run: async (_args, context) => {
        runs += 1;
        await context.requestInput({
          mode: 'url',
          message: 'Approve the refund at the bank',
          url: 'https://bank.example/approve/1',
        });
        return ok('refunded');
      },
    });
    wardrik = await openWardrik(path, [agentWith(asking)]);
    const { runId } = await wardrik.start('clerk', 'refund o-1');
    const park = await openQuestion(runId);
    expect(park.details).toEqual({
      mode: 'url',
      message: 'Approve the refund at the bank',
      url: 'https://bank.example/approve/1',
    });
    await wardrik.close();
    wardrik = await openWardrik(path, [agentWith(asking)]);
    await wardrik.recover();
    await until(async () => (await wardrik!.getRunSummary(runId)).status === 'parked', 60_000);
    expect((await wardrik.getPark(park.id)).status).toBe('closed');
    const open = await wardrik.listParks({ runId, status: 'open' });
    expect(open.map((each) => each.kind)).toEqual(['in_doubt']);
    expect(runs).toBe(1);
    await expect(
      wardrik.answerPark(park.id, { type: 'answer', value: {} }, { callHash: park.callHash }),
    ).rejects.toThrow(ParkAlreadyAnsweredError);
  });

  it('a URL question is accepted with no value; a value is refused', async () => {
    const replies: InputReply[] = [];
    const asking = tool({
      name: 'refund',
      description: 'Refunds an order.',
      schema: { order: { type: 'string', required: true } },
      run: async (_args, context) => {
        replies.push(
          await context.requestInput({ mode: 'url', message: 'Sign the form', url: 'https://forms.example/1' }),
        );
        return ok('signed');
      },
    });
    wardrik = await openWardrik(tempDbPath(), [agentWith(asking)]);
    const { runId } = await wardrik.start('clerk', 'refund o-1');
    const park = await openQuestion(runId);
    await expect(
      wardrik.answerPark(park.id, { type: 'answer', value: { password: 'x' } }, { callHash: park.callHash }),
    ).rejects.toThrow('takes no value');
    await wardrik.answerPark(park.id, { type: 'answer', value: {} }, { callHash: park.callHash });
    expect((await wardrik.wait(runId)).status).toBe('completed');
    expect(replies).toEqual([{ action: 'accept' }]);
  });

  it('a malformed question is refused to the tool, naming the field, and nothing is parked', async () => {
    const seen: string[] = [];
    const asking = tool({
      name: 'refund',
      description: 'Refunds an order.',
      schema: { order: { type: 'string', required: true } },
      run: async (_args, context) => {
        for (const question of [
          { mode: 'form', message: 'Pick', schema: 'account' },
          { mode: 'url', message: 'Open', url: 'javascript:alert(1)' },
          { mode: 'chat', message: 'Hi' },
          { mode: 'form', message: '', schema: accountSchema },
        ]) {
          await context.requestInput(question as never).catch((thrown: Error) => seen.push(thrown.message));
        }
        return ok('asked nothing');
      },
    });
    wardrik = await openWardrik(tempDbPath(), [agentWith(asking)]);
    const result = await wardrik.run('clerk', 'refund o-1');
    expect(result.status).toBe('completed');
    expect(seen).toEqual([
      'question.schema: expected an object JSON Schema, got string',
      'question.url: expected an http or https URL, got string "javascript:alert(1)"',
      `question.mode: expected 'form' or 'url', got "chat"`,
      'question.message: expected the text to show the person (a non-empty string)',
    ]);
    expect(await wardrik.listParks({ runId: result.runId })).toEqual([]);
  });

  it("sampling asks the agent's model: what it cost is the call's, and its answer is labelled outside", async () => {
    const summarize = tool({
      name: 'summarize',
      description: 'Summarizes a page.',
      schema: { url: { type: 'string', required: true } },
      annotations: { readOnly: true },
      run: async ({ url }, context) => {
        const { text, stopReason } = await context.sample({
          messages: [{ role: 'user', text: `Summarize ${url}` }],
          systemPrompt: 'Be brief.',
          maxTokens: 50,
        });
        return ok({ summary: text, stopReason });
      },
    });
    const requests: unknown[] = [];
    // A function script: the sample is asked during step 1, with no tools offered.
    const model = new ScriptedModel(
      (request) => {
        if (request.tools.length === 0) {
          requests.push({ instructions: request.instructions, messages: request.messages, tools: request.tools });
          return { text: 'A short page.', usage: { inputTokens: 100, outputTokens: 20 } };
        }
        if (request.step === 1)
          return { toolCalls: [{ name: 'summarize', arguments: { url: 'https://example.com' } }] };
        return { text: `summary: ${JSON.stringify(lastToolResults(request)[0]?.content)}` };
      },
      { usage: { inputTokens: 10, outputTokens: 5 } },
    );
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'reader', instructions: 'Read.', tools: [summarize], model }),
    ]);
    const result = await wardrik.run('reader', 'summarize example.com');
    expect(result.status).toBe('completed');
    expect(requests).toEqual([
      { instructions: 'Be brief.', messages: [{ role: 'user', content: 'Summarize https://example.com' }], tools: [] },
    ]);
    expect(result.output).toBe('summary: {"summary":"A short page.","stopReason":"endTurn"}');
    expect(result.labels).toEqual([OUTSIDE]);
    // Two model steps (10 + 10) and the sample (100) in the run's measures.
    expect(result.measures).toMatchObject({ inputTokens: 120, outputTokens: 30 });
    const answered = (await wardrik.getRun(result.runId)).journal.find(({ record }) => record.type === 'call-answered');
    expect(answered?.record).toMatchObject({
      answer: { labels: [OUTSIDE], measures: { inputTokens: 100, outputTokens: 20 } },
    });
  });

  it('sampling is refused once the run has spent its budget, and the model is not asked', async () => {
    const seen: string[] = [];
    const summarize = tool({
      name: 'summarize',
      description: 'Summarizes a page.',
      annotations: { readOnly: true },
      run: async (_args, context) => {
        await context
          .sample({ messages: [{ role: 'user', text: 'Summarize' }], maxTokens: 50 })
          .catch((thrown: Error) => seen.push(thrown.message));
        return ok('none');
      },
    });
    let asked = 0;
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'summarize', arguments: {} }] },
      () => {
        asked += 1;
        return { text: 'never' };
      },
    ]);
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'reader', instructions: 'Read.', tools: [summarize], model, budget: { tokens: 10 } }),
    ]);
    const result = await wardrik.run('reader', 'summarize');
    expect(seen).toEqual(["sample: the run's budget is reached (used 15 tokens of 10); the model was not asked"]);
    expect(asked).toBe(0);
    expect(result.status).toBe('parked');
    expect(result.parks[0]?.kind).toBe('budget');
  });
});
