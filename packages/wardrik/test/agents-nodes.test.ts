/*
 * Agents working together across nodes on one PostgreSQL (issues 13 and 15): a child run's park
 * answered on another node resumes the child there, and the child's end answers its parent's wait,
 * which resumes the parent wherever it is taken up; a transferred run resumed on another node goes
 * on under the agent it was transferred to.
 */
import { park, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTool, createWardrik, defineAgent, TRANSFER_TOOL, type Wardrik } from '../src/index.js';
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

const executed: string[] = [];
const confirm = tool({
  name: 'confirm',
  description: 'Needs a person, then acts once.',
  schema: {},
  run: (_args, context) => {
    if (!context.approval) return park('a person must confirm');
    executed.push(context.idempotencyKey);
    return 'confirmed';
  },
});

function agents() {
  const clerk = defineAgent({
    name: 'clerk',
    description: 'Confirms things.',
    instructions: 'Confirm.',
    tools: [confirm],
    model: new ScriptedModel((request) =>
      lastToolResults(request)[0]?.name === 'confirm' ? { text: 'clerk done' } : { toolCalls: [{ name: 'confirm' }] },
    ),
  });
  const boss = defineAgent({
    name: 'boss',
    instructions: 'Delegate.',
    tools: [agentTool(clerk)],
    model: new ScriptedModel((request) => {
      const answer = lastToolResults(request).find((each) => each.name === 'clerk');
      return answer
        ? { text: `boss got ${JSON.stringify(answer.content)}` }
        : { toolCalls: [{ name: 'clerk', arguments: { request: 'confirm it' } }] };
    }),
  });
  const desk = defineAgent({
    name: 'desk',
    instructions: 'Route.',
    subAgents: [clerk],
    model: new ScriptedModel(() => ({ toolCalls: [{ name: TRANSFER_TOOL, arguments: { agent_name: 'clerk' } }] })),
  });
  return [boss, desk];
}

async function node(name: string): Promise<Wardrik> {
  schema ??= testSchemaName();
  const wardrik = await createWardrik({
    store: openPostgresTestStore({ schema, keepSchema: true }),
    agents: agents(),
    node: name,
    claimIntervalMs: 20,
  });
  opened.push(wardrik);
  return wardrik;
}

describe('agents working together across nodes on PostgreSQL', () => {
  it("a child's park answered on another node resumes the child and then its parent; the child acts once", async () => {
    executed.length = 0;
    const a = await node('a');
    const b = await node('b');
    const parked = await a.run('boss', 'get it confirmed');
    expect(parked.status).toBe('parked');
    const child = parked.parks[0]!.handle!.slice('child:'.length);
    await until(async () => (await b.listParks({ runId: child, status: 'open' })).length === 1, 120_000);
    const [held] = await b.listParks({ runId: child, status: 'open' });
    await b.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'carol' });
    await until(async () => (await b.getRunSummary(parked.runId)).status === 'completed', 120_000);
    expect((await a.getRunSummary(parked.runId)).output).toBe('boss got "clerk done"');
    expect(executed).toEqual([`${child}:c1.0`]);
  });

  it('a transferred run answered on another node goes on there under the agent it was transferred to', async () => {
    executed.length = 0;
    const a = await node('a');
    const b = await node('b');
    const parked = await a.run('desk', 'confirm please');
    expect(parked.status).toBe('parked');
    const [held] = parked.parks;
    await b.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash });
    await until(async () => (await a.getRunSummary(parked.runId)).status === 'completed', 120_000);
    const run = await b.getRun(parked.runId);
    expect(run.output).toBe('clerk done');
    expect(run.journal.flatMap(({ record }) => (record.type === 'model-step' ? [record.agent ?? 'desk'] : []))).toEqual(
      ['desk', 'clerk', 'clerk'],
    );
    expect(executed).toEqual([`${parked.runId}:c2.0`]);
  });
});
