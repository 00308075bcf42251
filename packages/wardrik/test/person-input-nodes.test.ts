/*
 * A call's question to a person (an `input` park) answered on another node than the one running
 * the call, on one PostgreSQL: the answer is recorded there and reaches the waiting call on its
 * node (through the run's requests), once; a second answer is refused.
 */
import { type InputReply, ok, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createWardrik, defineAgent, ParkAlreadyAnsweredError, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';

const opened: Wardrik[] = [];
let schema: string | undefined;
afterEach(async () => {
  const failures = opened.flatMap((wardrik) => (wardrik.failure ? [wardrik.failure.message] : []));
  await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
  expect(failures).toEqual([]);
  if (schema) await dropTestSchema(schema);
  schema = undefined;
});

const replies: { node: string; reply: InputReply }[] = [];

function clerk(node: string) {
  const refund = tool({
    name: 'refund',
    description: 'Refunds to an account a person chooses.',
    run: async (_args, context) => {
      const reply = await context.requestInput({
        mode: 'form',
        message: 'Which account?',
        schema: { type: 'object', properties: { account: { type: 'string' } }, required: ['account'] },
      });
      replies.push({ node, reply });
      return ok(reply);
    },
  });
  return defineAgent({
    name: 'clerk',
    instructions: 'Refund.',
    tools: [refund],
    model: new ScriptedModel((request) =>
      lastToolResults(request)[0]
        ? { text: `done ${JSON.stringify(lastToolResults(request)[0]?.content)}` }
        : { toolCalls: [{ name: 'refund' }] },
    ),
  });
}

async function node(name: string): Promise<Wardrik> {
  schema ??= testSchemaName();
  const wardrik = await createWardrik({
    store: openPostgresTestStore({ schema, keepSchema: true }),
    agents: [clerk(name)],
    node: name,
    claimIntervalMs: 20,
  });
  opened.push(wardrik);
  return wardrik;
}

describe('input parks across nodes on PostgreSQL', () => {
  it('a question answered on another node reaches the call waiting on its own node, once', async () => {
    replies.length = 0;
    const a = await node('a');
    const b = await node('b');
    const { runId } = await a.start('clerk', 'refund it');
    await until(async () => (await b.listParks({ runId, status: 'open', kind: 'input' })).length === 1, 120_000);
    const [question] = await b.listParks({ runId, status: 'open', kind: 'input' });
    // The run goes on on node a (its call waits there): node b records the answer for it.
    expect((await b.getRunSummary(runId)).status).toBe('running');
    await b.answerPark(
      question!.id,
      { type: 'answer', value: { account: 'A-9' } },
      { callHash: question!.callHash, by: 'bo' },
    );
    await expect(a.answerPark(question!.id, { type: 'deny' }, { callHash: question!.callHash })).rejects.toThrow(
      ParkAlreadyAnsweredError,
    );
    await until(async () => (await b.getRunSummary(runId)).status === 'completed', 120_000);
    expect(replies).toEqual([{ node: 'a', reply: { action: 'accept', content: { account: 'A-9' } } }]);
    const journal = (await b.getRun(runId)).journal.map(({ record }) => record.type);
    expect(journal.filter((type) => type === 'park-answered')).toHaveLength(1);
    expect((await b.getRunSummary(runId)).output).toBe('done {"action":"accept","content":{"account":"A-9"}}');
  });
});
