/*
 * Workflow agents' children share the workflow's invocation, as ADK's sub-agents do: its session
 * state (the output_key pattern: one step writes `draft`, the next reads `{draft}`), and its
 * run-only state (`temp:` keys; unprefixed keys without a session), handed to each child as it
 * starts and back with its answer. On every store.
 */
import { tool } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  createWardrik,
  defineAgent,
  type ModelRequest,
  parallelAgent,
  sequentialAgent,
  type Wardrik,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { storeFactories } from './store-factories.js';

/** An agent that answers `text` at once, keeping the instructions it was given. */
function writer(
  name: string,
  text: string,
  seen: string[],
  options: { outputKey?: string; instructions?: string } = {},
) {
  return defineAgent({
    name,
    instructions: options.instructions ?? `You are ${name}.`,
    model: new ScriptedModel((request: ModelRequest) => {
      seen.push(request.instructions);
      return { text };
    }),
    ...(options.outputKey ? { outputKey: options.outputKey } : {}),
  });
}

/** An agent that calls `note` with `key` and `value`, then answers what `read` returned for `readKey`. */
function noter(name: string, write: Record<string, unknown>, readKeys: string[]) {
  const note = tool({
    name: 'note',
    description: 'Writes and reads state.',
    annotations: { readOnly: true },
    run: (_args, context) => {
      for (const [key, value] of Object.entries(write)) context.state.set(key, value);
      return Object.fromEntries(readKeys.map((key) => [key, context.state.get(key) ?? null]));
    },
  });
  return defineAgent({
    name,
    instructions: `You are ${name}.`,
    tools: [note],
    model: new ScriptedModel((request: ModelRequest) => {
      const answered = request.messages.at(-1);
      if (answered?.role !== 'tool') return { toolCalls: [{ name: 'note' }] };
      return { text: JSON.stringify(answered.content) };
    }),
  });
}

describe('outputKey', () => {
  it('must be a state key; app: needs appState write', () => {
    const model = new ScriptedModel([{ text: 'x' }]);
    expect(() => defineAgent({ name: 'a', instructions: '', model, outputKey: '' })).toThrow(
      'agent a: outputKey: a state key must not be empty',
    );
    expect(() => defineAgent({ name: 'a', instructions: '', model, outputKey: 'app:x' })).toThrow(AgentDefinitionError);
    expect(defineAgent({ name: 'a', instructions: '', model, outputKey: 'app:x', appState: 'write' }).outputKey).toBe(
      'app:x',
    );
  });
});

describe.each(storeFactories)('workflow children share the invocation on $name', (factory) => {
  let wardrik: Wardrik | undefined;
  afterEach(async () => {
    await wardrik?.close();
    wardrik = undefined;
  });
  async function open(agents: Parameters<typeof createWardrik>[0]['agents']): Promise<Wardrik> {
    wardrik = await createWardrik({ store: await factory.open(), agents });
    return wardrik;
  }

  it('a sequential step reads what the one before wrote to the session ({draft}), and the session keeps it', async () => {
    const seen: string[] = [];
    const pipeline = sequentialAgent({
      name: 'pipeline',
      agents: [
        writer('drafter', 'Version 2.1 adds tasks.', seen, { outputKey: 'draft' }),
        writer('reviewer', 'Approved.', seen, { instructions: 'Review this draft: {draft}', outputKey: 'user:review' }),
      ],
    });
    const runtime = await open([pipeline]);
    const session = await runtime.createSession('pipeline', { principal: 'ann' });
    const result = await runtime.run('pipeline', 'write the note', { principal: 'ann', session: session.id });
    expect(result.status).toBe('completed');
    expect(seen).toEqual(['You are drafter.', 'Review this draft: Version 2.1 adds tasks.']);
    const state = (await runtime.sessionDetails(session.id)).state;
    expect(state.map((value) => [value.key, value.value])).toEqual([
      ['draft', 'Version 2.1 adds tasks.'],
      ['user:review', 'Approved.'],
    ]);
    // The children took no turn of the session: its conversation is the workflow's.
    expect((await runtime.getSession(session.id)).runs).toBe(1);
  });

  it.each([
    ['with a session', true],
    ['without a session', false],
  ])('run-only state goes from step to step and back to the workflow, %s', async (_how, withSession) => {
    const pipeline = sequentialAgent({
      name: 'pipeline',
      agents: [
        noter('first', { 'temp:notes': ['a'], plain: 1 }, []),
        noter('second', { 'temp:more': 'b' }, ['temp:notes', 'plain']),
        noter('third', {}, ['temp:notes', 'temp:more', 'plain']),
      ],
    });
    const runtime = await open([pipeline]);
    const session = withSession ? await runtime.createSession('pipeline', { principal: 'ann' }) : undefined;
    const result = await runtime.run('pipeline', 'go', {
      principal: 'ann',
      ...(session ? { session: session.id } : {}),
    });
    expect(result.status).toBe('completed');
    expect(JSON.parse(result.output ?? '')).toEqual({ 'temp:notes': ['a'], 'temp:more': 'b', plain: 1 });
    if (session) {
      // temp: keys are never stored; the session keeps its own keys.
      const state = (await runtime.sessionDetails(session.id)).state;
      expect(state.map((value) => value.key)).toEqual(['plain']);
    }
  });

  it('a step that waited for a person hands its run-only state back when it ends', async () => {
    const refund = tool({
      name: 'refund',
      description: 'Refunds (always asks a person).',
      annotations: { destructive: true },
      run: (_args, context) => {
        context.state.set('temp:refunded', 120);
        return 'refunded';
      },
    });
    const cashier = defineAgent({
      name: 'cashier',
      instructions: '',
      tools: [refund],
      model: new ScriptedModel((request: ModelRequest) =>
        request.messages.at(-1)?.role === 'tool' ? { text: 'paid' } : { toolCalls: [{ name: 'refund' }] },
      ),
    });
    const flow = sequentialAgent({ name: 'flow', agents: [cashier, noter('after', {}, ['temp:refunded'])] });
    const runtime = await open([flow]);
    const { runId } = await runtime.start('flow', 'refund A1');
    const deadline = Date.now() + 30_000;
    let approval = (await runtime.listParks({ status: 'open', kind: 'approval' }))[0];
    while (!approval) {
      if (Date.now() > deadline) throw new Error('the refund never waited for a person');
      await new Promise((resolve) => setTimeout(resolve, 5));
      approval = (await runtime.listParks({ status: 'open', kind: 'approval' }))[0];
    }
    await runtime.answerPark(approval.id, { type: 'approve' }, { callHash: approval.callHash });
    while ((await runtime.getRunSummary(runId)).status !== 'completed') {
      if (Date.now() > deadline) throw new Error('the workflow never completed');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const result = await runtime.wait(runId);
    expect(result.status).toBe('completed');
    expect(JSON.parse(result.output ?? '')).toEqual({ 'temp:refunded': 120 });
  });

  it('parallel branches start from the same state; both branches’ writes reach the next step; the last to end wins a key', async () => {
    let releaseSlow: (() => void) | undefined;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    const slowNote = tool({
      name: 'note',
      description: 'Writes after a while.',
      annotations: { readOnly: true },
      run: async (_args, context) => {
        await slowGate;
        context.state.set('temp:winner', 'slow');
        context.state.set('temp:slow', true);
        return context.state.get('temp:fast') ?? 'fast not seen';
      },
    });
    const slow = defineAgent({
      name: 'slow',
      instructions: '',
      tools: [slowNote],
      model: new ScriptedModel((request: ModelRequest) =>
        request.messages.at(-1)?.role === 'tool' ? { text: 'slow done' } : { toolCalls: [{ name: 'note' }] },
      ),
    });
    const fast = noter('fast', { 'temp:winner': 'fast', 'temp:fast': true }, []);
    const flow = sequentialAgent({
      name: 'flow',
      agents: [
        parallelAgent({ name: 'both', agents: [slow, fast] }),
        noter('after', {}, ['temp:winner', 'temp:slow', 'temp:fast']),
      ],
    });
    const runtime = await open([flow]);
    const { runId } = await runtime.start('flow', 'go');
    // The fast branch ends first; then the slow one is let go.
    const deadline = Date.now() + 30_000;
    while (!(await runtime.listRuns()).some((run) => run.agent === 'fast' && run.status === 'completed')) {
      if (Date.now() > deadline) throw new Error('the fast branch never ended');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    releaseSlow?.();
    const result = await runtime.wait(runId);
    expect(result.status).toBe('completed');
    expect(JSON.parse(result.output ?? '')).toEqual({ 'temp:winner': 'slow', 'temp:slow': true, 'temp:fast': true });
    // The slow branch started from the state before the fast one wrote: it did not see its write.
    const slowRun = (await runtime.listRuns()).find((run) => run.agent === 'slow');
    const slowJournal = (await runtime.getRun(slowRun!.id)).journal.map((each) => each.record);
    expect(slowJournal.find((record) => record.type === 'call-answered')).toMatchObject({
      answer: { value: 'fast not seen' },
    });
  });
});
