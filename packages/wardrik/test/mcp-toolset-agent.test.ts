/*
 * An agent using an MCP server as a toolset, end to end: server-everything over stdio, the run
 * loop asking for its tools before each step, its read-only tool running on its own, and a tool
 * it does not mark read-only held for a person (its annotations are the server's claims).
 */
import { fileURLToPath } from 'node:url';
import { OUTSIDE } from '@wardrik/core';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, mcpToolset, type Wardrik } from '../src/index.js';
import { lastToolResults, ScriptedModel } from '../src/testing/index.js';
import { modelSteps, openWardrik, tempDbPath } from './helpers.js';

const EVERYTHING = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
});

describe('an agent with an MCP server as a toolset', () => {
  it('offers its tools, runs a read-only one, labels its answer outside, and gates one not marked read-only', async () => {
    const everything = mcpToolset({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'everything__get-sum', arguments: { a: 2, b: 40 } }] },
      (request) => ({
        text: `sum: ${JSON.stringify(lastToolResults(request)[0]?.content)}`,
        toolCalls: [{ name: 'everything__toggle-simulated-logging', arguments: {} }],
      }),
      { text: 'done' },
    ]);
    const agent = defineAgent({ name: 'helper', instructions: 'Help.', model, toolsets: [everything] });
    wardrik = await openWardrik(tempDbPath(), [agent]);
    const result = await wardrik.run('helper', 'add 2 and 40');
    expect(result.status).toBe('parked');
    expect(result.labels).toEqual([OUTSIDE]);
    expect(result.parks[0]).toMatchObject({
      kind: 'approval',
      rule: 'mcp-not-read-only',
      call: { name: 'everything__toggle-simulated-logging' },
    });
    const journal = (await wardrik.getRun(result.runId)).journal;
    const [first] = modelSteps(journal);
    expect(first?.tools).toEqual(expect.arrayContaining(['everything__get-sum', 'everything__echo']));
    const sum = journal.find((each) => each.record.type === 'call-answered')?.record;
    expect(sum).toMatchObject({ answer: { type: 'ok', labels: [OUTSIDE] } });
    expect(JSON.stringify(sum)).toContain('42');
  });
});
