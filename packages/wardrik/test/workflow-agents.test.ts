/*
 * Workflow agents (issue 15, part 3): sequentialAgent, parallelAgent, loopAgent — each step a
 * child run started by a journaled step of the workflow's run, recovered like any run.
 */
import { park, tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  defineAgent,
  loopAgent,
  type ModelRequest,
  parallelAgent,
  sequentialAgent,
  type Wardrik,
} from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath, until } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

/** An agent that answers `transform(input)` at once, noting each input it was given. */
function echo(name: string, transform: (input: string) => string, seen: string[] = []) {
  return defineAgent({
    name,
    instructions: `You are ${name}.`,
    model: new ScriptedModel((request: ModelRequest) => {
      const input = request.messages.at(-1);
      const text = input?.role === 'user' ? input.content : '';
      seen.push(text);
      return { text: transform(text), measures: { usd: 0.01 } };
    }),
  });
}

async function childRuns(runId: string): Promise<string[]> {
  const { journal } = await wardrik!.getRun(runId);
  return journal.flatMap(({ record }) => (record.type === 'child-run-started' ? [record.childRunId] : []));
}

describe('workflow agents', () => {
  it('sequentialAgent gives each agent the answer of the one before; the last answer is the workflow’s', async () => {
    const seen: string[] = [];
    const pipeline = sequentialAgent({
      name: 'pipeline',
      agents: [
        echo('drafter', (input) => `draft(${input})`, seen),
        echo('reviewer', (input) => `reviewed(${input})`, seen),
        echo('publisher', (input) => `published(${input})`, seen),
      ],
    });
    wardrik = await openWardrik(tempDbPath(), [pipeline]);
    const result = await wardrik.run('pipeline', 'release note');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('published(reviewed(draft(release note)))');
    expect(seen).toEqual(['release note', 'draft(release note)', 'reviewed(draft(release note))']);
    expect(result.measures.usd).toBeCloseTo(0.03);
    const children = await childRuns(result.runId);
    expect(children).toHaveLength(3);
    const agents = await Promise.all(children.map(async (id) => (await wardrik!.getRunSummary(id)).agent));
    expect(agents).toEqual(['drafter', 'reviewer', 'publisher']);
  });

  it('parallelAgent runs its branches at once, each a run of its own; a branch that parks holds the workflow while the others finish', async () => {
    const approve = tool({
      name: 'approve_budget',
      description: 'Needs a person.',
      schema: {},
      run: () => park('finance must approve'),
    });
    const finance = defineAgent({
      name: 'finance',
      instructions: 'Ask finance.',
      tools: [approve],
      model: new ScriptedModel((request) =>
        lastToolResults(request)[0]
          ? { text: `finance: ${String(lastToolResults(request)[0]?.content)}` }
          : { toolCalls: [{ name: 'approve_budget', arguments: {} }] },
      ),
    });
    const research = parallelAgent({
      name: 'research',
      agents: [echo('web', (input) => `web on ${input}`), finance, echo('news', (input) => `news on ${input}`)],
    });
    wardrik = await openWardrik(tempDbPath(), [research]);
    const result = await wardrik.run('research', 'solar panels');
    expect(result.status).toBe('parked');
    expect(result.parks).toHaveLength(1);
    const children = await childRuns(result.runId);
    expect(children).toHaveLength(3);
    const statuses = await Promise.all(children.map(async (id) => (await wardrik!.getRunSummary(id)).status));
    expect(statuses.sort()).toEqual(['completed', 'completed', 'parked']);
    // All three were started by one step of the workflow: they ran side by side.
    const steps = (await wardrik.getRun(result.runId)).journal.filter(({ record }) => record.type === 'model-step');
    expect(steps).toHaveLength(1);

    const financeRun = children[1]!;
    const [question] = await wardrik.listParks({ runId: financeRun, status: 'open' });
    await wardrik.answerPark(
      question!.id,
      { type: 'answer', value: 'approved' },
      { callHash: question!.callHash, by: 'cfo' },
    );
    await until(async () => (await wardrik!.getRunSummary(result.runId)).status === 'completed', 120_000);
    const done = await wardrik.wait(result.runId);
    expect(done.output).toBe('web:\nweb on solar panels\n\nfinance:\nfinance: approved\n\nnews:\nnews on solar panels');
  });

  it('loopAgent repeats until a child’s answer ends it, or maxIterations', async () => {
    const writer = echo('writer', (input) => `${input}+`);
    const critic = echo('critic', (input) => (input.length >= 'text+++'.length ? `APPROVED ${input}` : input));
    const polish = loopAgent({
      name: 'polish',
      agents: [writer, critic],
      maxIterations: 10,
      until: ({ agent, output }) => agent === 'critic' && output.startsWith('APPROVED'),
    });
    const capped = loopAgent({ name: 'capped', agents: [writer], maxIterations: 4 });
    wardrik = await openWardrik(tempDbPath(), [polish, capped]);
    const result = await wardrik.run('polish', 'text');
    expect(result.output).toBe('APPROVED text+++');
    expect(await childRuns(result.runId)).toHaveLength(6);
    const cappedRun = await wardrik.run('capped', 'x');
    expect(cappedRun.output).toBe('x++++');
    expect(await childRuns(cappedRun.runId)).toHaveLength(4);
  });

  it('a child that fails fails the workflow, naming it', async () => {
    const broken = defineAgent({
      name: 'broken',
      instructions: '',
      maxSteps: 1,
      model: new ScriptedModel(() => ({ toolCalls: [{ name: 'nothing', arguments: {} }] })),
    });
    wardrik = await openWardrik(tempDbPath(), [
      sequentialAgent({ name: 'flow', agents: [echo('first', (x) => x), broken] }),
    ]);
    const result = await wardrik.run('flow', 'go');
    expect(result.status).toBe('failed');
    expect(result.error).toContain('the sequential workflow flow stopped: agent broken failed:');
    expect(result.error).toContain('maxSteps');
  });

  it('a workflow stopped mid-way resumes where it was: finished children are not run again', async () => {
    const path = tempDbPath();
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let secondCalls = 0;
    const second = () =>
      defineAgent({
        name: 'second',
        instructions: '',
        model: {
          id: 'slow',
          async generate(request: ModelRequest) {
            secondCalls += 1;
            if (secondCalls === 1) await gate;
            const input = request.messages.at(-1);
            return {
              text: `second(${input?.role === 'user' ? input.content : ''})`,
              toolCalls: [],
              usage: { inputTokens: 1, outputTokens: 1 },
            };
          },
        },
      });
    const flow = () =>
      sequentialAgent({
        name: 'flow',
        agents: [echo('first', (x) => `first(${x})`, seen), second(), echo('third', (x) => `third(${x})`, seen)],
      });
    const before = await openWardrik(path, [flow()]);
    const { runId } = await before.start('flow', 'go');
    await until(() => secondCalls === 1, 120_000);
    await before.close();
    release();

    wardrik = await openWardrik(path, [flow()]);
    await until(async () => (await wardrik!.getRunSummary(runId)).status === 'completed', 120_000);
    expect((await wardrik.wait(runId)).output).toBe('third(second(first(go)))');
    expect(seen).toEqual(['go', 'second(first(go))']); // first ran once, before the stop
    expect(await childRuns(runId)).toHaveLength(3);
  });

  it('bad workflow definitions are refused, naming the field', () => {
    expect(() => sequentialAgent({ name: 'x', agents: [] })).toThrow(/agents must be a non-empty array/);
    expect(() => parallelAgent({ name: 'x', agents: [{} as never] })).toThrow(/agents\[0\] is not an agent/);
    expect(() => loopAgent({ name: 'x', agents: [echo('a', (x) => x)], maxIterations: 0 })).toThrow(
      AgentDefinitionError,
    );
    expect(() =>
      loopAgent({ name: 'x', agents: [echo('a', (x) => x)], maxIterations: 2, until: 'yes' as never }),
    ).toThrow(/until must be a function/);
  });
});
