/*
 * Draining a node (issue 29 item 1), in process on a real SQLite file: runs stop at their next
 * safe point (a call under way finishes and is journaled; a model call about to begin is not
 * made), new runs and answers are refused, and what goes on afterwards (a new runtime on the file)
 * repeats nothing and parks nothing in doubt. Before `drain`, `close()` stopped drivers where they
 * were: the call under way lost its answer and came back in doubt.
 */
import { tool } from '@wardrik/core';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../src/agent.js';
import { NodeStoppingError } from '../src/runtime/drain.js';
import { ScriptedModel } from '../src/testing/scripted-model.js';
import { openWardrik, tempDbPath, until } from './helpers.js';

function setup(options: { toolMs?: number; modelMs?: number } = {}) {
  const executions: string[] = [];
  let release: (() => void) | undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const sendEmail = tool({
    name: 'send_email',
    description: 'Sends an email: not safe to repeat.',
    schema: { to: { type: 'string', required: true } },
    run: async (args, context) => {
      executions.push(context.idempotencyKey);
      if (options.toolMs === undefined) await gate;
      else await new Promise((resolve) => setTimeout(resolve, options.toolMs));
      return { sent: args.to };
    },
  });
  const model = new ScriptedModel((request) =>
    request.step === 1
      ? { toolCalls: [{ name: 'send_email', arguments: { to: 'a@example.com' } }], delayMs: options.modelMs }
      : { text: 'sent', delayMs: options.modelMs },
  );
  const agent = defineAgent({ name: 'mailer', instructions: 'Send mail.', model, tools: [sendEmail] });
  return { agent, executions, model, release: () => release?.() };
}

describe('drain', () => {
  it('lets a call under way finish and journal its answer, then stops the run before its next model call', async () => {
    const path = tempDbPath();
    const { agent, executions, model, release } = setup();
    const wardrik = await openWardrik(path, [agent]);
    const { runId } = await wardrik.start('mailer', 'mail a');
    await until(() => executions.length === 1);

    const draining = wardrik.drain({ graceMs: 60_000 });
    expect(wardrik.draining).toBe(true);
    // New work is refused at once, with why.
    await expect(wardrik.start('mailer', 'mail b')).rejects.toThrow(NodeStoppingError);
    await expect(wardrik.start('mailer', 'mail b')).rejects.toThrow(/this node is stopping/);
    release();
    expect(await draining).toEqual({ settled: 1, cutShort: 0 });
    const journal = (await wardrik.getRun(runId)).journal.map((stored) => stored.record.type);
    expect(journal).toEqual(['run-started', 'model-step', 'call-started', 'call-answered']);
    expect(model.calls).toBe(1); // the second step was not begun
    await wardrik.close();

    // The next node (here: the restart) goes on from the answer: nothing repeated, nothing in doubt.
    const next = setup({ toolMs: 0 });
    const restarted = await openWardrik(path, [next.agent]);
    const result = await restarted.wait(runId);
    expect(result).toMatchObject({ status: 'completed', output: 'sent' });
    expect(next.executions).toEqual([]);
    expect(await restarted.listParks({ runId })).toEqual([]);
    await restarted.close();
  });

  it('lets a model call under way finish and journals its step', async () => {
    const path = tempDbPath();
    const { agent, model } = setup({ modelMs: 300, toolMs: 0 });
    const wardrik = await openWardrik(path, [agent]);
    const { runId } = await wardrik.start('mailer', 'mail a');
    await until(() => model.calls === 1);
    expect(await wardrik.drain({ graceMs: 60_000 })).toEqual({ settled: 1, cutShort: 0 });
    const journal = (await wardrik.getRun(runId)).journal.map((stored) => stored.record.type);
    expect(journal).toEqual(['run-started', 'model-step']);
    await wardrik.close();
  });

  it('stops what is still going when the grace period runs out (then the journal decides: in doubt)', async () => {
    const path = tempDbPath();
    const { agent, executions } = setup();
    const wardrik = await openWardrik(path, [agent]);
    const { runId } = await wardrik.start('mailer', 'mail a');
    await until(() => executions.length === 1);
    expect(await wardrik.drain({ graceMs: 50 })).toEqual({ settled: 0, cutShort: 1 });
    await wardrik.close();
    const next = setup({ toolMs: 0 });
    const restarted = await openWardrik(path, [next.agent]);
    const result = await restarted.wait(runId);
    expect(result.status).toBe('parked');
    expect(result.parks.map((park) => park.kind)).toEqual(['in_doubt']);
    expect(next.executions).toEqual([]);
    await restarted.close();
  });

  it('refuses answers while draining, and a bad grace period, naming it', async () => {
    const path = tempDbPath();
    const { agent } = setup({ toolMs: 0 });
    const wardrik = await openWardrik(path, [agent]);
    expect(() => wardrik.drain({ graceMs: -1 })).toThrow(/graceMs/);
    await wardrik.drain({ graceMs: 0 });
    await expect(wardrik.answerPark('park_x', { type: 'approve' }, { callHash: 'h' })).rejects.toThrow(
      NodeStoppingError,
    );
    await wardrik.close();
  });
});
