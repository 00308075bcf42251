import { OUTSIDE, ok, type Tool, tool, toolset } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { PLAIN } from '../src/cli/style.js';
import { timeline } from '../src/cli/timeline.js';
import { defineAgent, type Wardrik } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { openWardrik, tempDbPath } from './helpers.js';

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

describe('wardrik show: what a run in a session was offered and wrote', () => {
  it('shows the session it continues, the tools each step was offered (and toolsets left out), and state writes', async () => {
    const read = tool({
      name: 'read_page',
      description: 'Reads a page and keeps it.',
      annotations: { readOnly: true },
      run: (_args, context) => {
        context.state.set('page', 'text from a page');
        context.state.delete('draft');
        return ok('read', { labels: [OUTSIDE] });
      },
    });
    const pages = toolset({ name: 'pages', tools: () => [read] as readonly Tool<never>[] });
    const broken = toolset({
      name: 'broken',
      tools: () => {
        throw new Error('catalogue down');
      },
    });
    const model = new ScriptedModel((request) =>
      request.messages.at(-1)?.role === 'user' && request.step === 1
        ? { toolCalls: [{ name: 'read_page' }] }
        : { text: 'done' },
    );
    wardrik = await openWardrik(tempDbPath(), [
      defineAgent({ name: 'reader', instructions: '', model, toolsets: [pages, broken] }),
    ]);
    const session = await wardrik.createSession('reader');
    await wardrik.run('reader', 'first', { session: session.id });
    const second = await wardrik.run('reader', 'second', { session: session.id });
    const lines = timeline(await wardrik.getRun(second.runId), { style: PLAIN }).join('\n');
    expect(lines).toContain(`Session ${session.id}: 4 earlier messages seen; carries outside from it`);
    expect(lines).toContain('offered: read_page');
    expect(lines).toContain('left out: toolset broken (catalogue down)');
    expect(lines).toContain('state: page = "text from a page" (labels: outside); deleted draft');
  });
});
