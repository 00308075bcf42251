/*
 * `wardrik listings`, as a user runs the built bin: it loads the config, connects to its MCP
 * servers itself and reads the workers from the running server's API, and prints each tool's
 * definition with the hash to pin. The hash it prints, used as the pin, silences the source: no
 * label, no warning. Real parts: the fixture MCP server over stdio, a worker over WebSocket.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type McpTool, OUTSIDE, tool } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingsReport } from '../src/cli/commands/listings-run.js';
import { createWardrik, defineAgent, mcpToolset, sqliteStore, toolDefinitionHash } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { buildCli, cli, closedPort, tmpRoot } from './cli-process.js';
import { modelSteps, tempDbPath } from './helpers.js';
import { LISTING_SERVER, listedByServer, WorkerEnv } from './tool-listings-env.js';

/** A description holding a right-to-left override, which would hide what it says on a terminal. */
const DESCRIPTION = 'Looks a key up (see invoice\u202Efdp.exe).';
const SPEC = JSON.stringify({ tools: { lookup: { description: DESCRIPTION, readOnly: true } } });

let directory: string;
beforeAll(async () => {
  await buildCli();
  directory = mkdtempSync(join(tmpRoot, 'cli-listings-'));
  // DOCS_PINS (JSON) pins the docs server; the support agent uses worker tools.
  writeFileSync(
    join(directory, 'wardrik.config.mjs'),
    `import { defineAgent, defineConfig, mcpToolset } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
const pins = process.env.DOCS_PINS ? JSON.parse(process.env.DOCS_PINS) : undefined;
const docs = mcpToolset({
  name: 'docs',
  command: process.execPath,
  args: [${JSON.stringify(LISTING_SERVER)}, ${JSON.stringify(SPEC)}],
  ...(pins ? { pins } : {}),
  log: () => {},
});
const model = new ScriptedModel([{ text: 'hi' }]);
export default defineConfig({
  agents: [
    defineAgent({ name: 'helper', instructions: 'Help.', model, toolsets: [docs] }),
    defineAgent({ name: 'support', instructions: 'Help.', model, workers: ['workers/*'] }),
  ],
  store: { sqlite: 'listings.db' },
});
`,
  );
}, 120_000);
afterAll(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const run = (args: readonly string[], env: Record<string, string> = {}) =>
  cli(['listings', ...args], { cwd: directory, env });

describe('wardrik listings: MCP servers', () => {
  it('prints each definition (invisible characters shown), its hash and state, and the pins; --check fails on an unpinned one', async () => {
    const json = await run(['--agent', 'helper', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as ListingsReport;
    expect(report.problems).toEqual([]);
    const [docs] = report.sources;
    expect(docs).toMatchObject({ source: 'mcp:docs', kind: 'mcp', agents: ['helper'], trusted: false });
    const [lookup] = docs?.tools ?? [];
    expect(lookup).toMatchObject({
      name: 'lookup',
      state: 'unpinned',
      definition: { name: 'lookup', description: DESCRIPTION },
    });
    expect(lookup?.hash).toBe(toolDefinitionHash(lookup?.definition as McpTool));
    expect(docs?.pins).toEqual({ lookup: lookup?.hash });

    const text = await run(['--agent', 'helper']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`mcp:docs — MCP server ${process.execPath}`);
    expect(text.stdout).toContain(`  lookup  unpinned  ${lookup?.hash}`);
    expect(text.stdout).toContain('invoice⟨U+202E⟩fdp.exe');
    expect(text.stdout).not.toContain('\u202E');
    expect(text.stdout).toContain(`    pins: { lookup: '${lookup?.hash}' }`);

    expect((await run(['--agent', 'helper', '--check'])).code).toBe(1);
  });

  it('the hash it prints, used as the pin, silences the server: pinned, no label, no warning', async () => {
    const report = JSON.parse((await run(['--agent', 'helper', '--json'])).stdout) as ListingsReport;
    const pins = report.sources[0]?.pins ?? {};
    const checked = await run(['--agent', 'helper', '--check', '--json'], { DOCS_PINS: JSON.stringify(pins) });
    expect(checked.code, checked.stderr).toBe(0);
    expect((JSON.parse(checked.stdout) as ListingsReport).sources[0]?.tools[0]?.state).toBe('pinned');

    // The same pins in a runtime: a side effect before any outside text runs without a person.
    const logged: string[] = [];
    const docs = mcpToolset({
      name: 'docs',
      command: process.execPath,
      args: [LISTING_SERVER, SPEC],
      pins,
      log: (message) => logged.push(message),
    });
    const notes: string[] = [];
    const note = tool({
      name: 'save_note',
      description: 'Saves a note.',
      run: () => {
        notes.push('saved');
        return 'saved';
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'save_note', arguments: {} }] }, { text: 'done' }]);
    const agent = defineAgent({ name: 'helper', instructions: 'Help.', model, tools: [note], toolsets: [docs] });
    const wardrik = await createWardrik({ store: sqliteStore(tempDbPath()), agents: [agent] });
    try {
      const result = await wardrik.run('helper', 'note it');
      expect(result).toMatchObject({ status: 'completed', labels: [] });
      expect(notes).toEqual(['saved']);
      expect(modelSteps((await wardrik.getRun(result.runId)).journal)[0]?.labels).toBeUndefined();
      expect(logged.filter((line) => line.includes('not pinned'))).toEqual([]);
    } finally {
      await wardrik.close();
      await docs.close();
    }
  });

  it('an unknown agent is a usage error naming the agents there are', async () => {
    const result = await run(['--agent', 'nobody']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no agent named "nobody" in the config (it has helper, support)');
  });
});

describe('wardrik listings: workers, through the server', () => {
  let env: WorkerEnv;
  let token: string;
  let hash: string;
  beforeAll(async () => {
    const server = new McpServer({ name: 'wiki', version: '1.0.0' });
    server.registerTool(
      'lookup',
      { description: 'Looks a key up in the wiki.', inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: 'text', text: 'found' }] }),
    );
    hash = toolDefinitionHash((await listedByServer(server))[0] as McpTool);
    const agent = defineAgent({
      name: 'support',
      instructions: 'Help.',
      model: new ScriptedModel([{ text: 'hi' }]),
      workers: ['workers/*'],
    });
    env = await WorkerEnv.start({ store: sqliteStore(tempDbPath()), agents: [agent] });
    ({ token } = await env.auth.createPrincipalWithToken({ name: 'ops', kind: 'user', role: 'admin', agents: ['*'] }));
    await env.connect('wiki', server);
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  it('lists what the workers offer the config’s agents, with the hash the worker’s listing has', async () => {
    const result = await run(['--agent', 'support', '--json', '--url', env.server.url, '--token', token]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as ListingsReport;
    expect(report.sources).toEqual([
      expect.objectContaining({
        source: 'worker:wiki',
        kind: 'worker',
        agents: ['support'],
        tools: [expect.objectContaining({ name: 'lookup', hash, state: 'unpinned' })],
        pins: { lookup: hash },
      }),
    ]);
    const text = await run(['--agent', 'support', '--url', env.server.url, '--token', token]);
    expect(text.stdout).toContain('pins for workers: { pins }');
    expect(text.stdout).toContain(`    pins: { lookup: '${hash}' }`);
  });

  it('that hash as workers.pins trusts the definition: pinned, and no step labelled', async () => {
    const pinnedServer = new McpServer({ name: 'wiki', version: '1.0.0' });
    pinnedServer.registerTool(
      'lookup',
      { description: 'Looks a key up in the wiki.', inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: 'text', text: 'found' }] }),
    );
    const agent = defineAgent({
      name: 'support',
      instructions: 'Help.',
      model: new ScriptedModel([{ text: 'hi' }]),
      workers: ['workers/*'],
    });
    const pinned = await WorkerEnv.start({
      store: sqliteStore(tempDbPath()),
      agents: [agent],
      workers: { pins: { lookup: hash } },
    });
    try {
      await pinned.connect('wiki', pinnedServer);
      // The worker's listing reaches the hub a moment after it connects: the step must be offered it.
      const deadline = Date.now() + 30_000;
      while ((pinned.wardrik.workers.list()[0]?.definitions.length ?? 0) === 0) {
        if (Date.now() > deadline) throw new Error('the worker never listed its tools');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const result = await pinned.wardrik.run('support', 'hi');
      expect(result.labels).not.toContain(OUTSIDE);
      expect(pinned.wardrik.workers.list()[0]?.definitions[0]).toMatchObject({ name: 'lookup', hash, state: 'pinned' });
      expect(pinned.logs.filter((line) => line.includes('not pinned'))).toEqual([]);
    } finally {
      await pinned.close();
    }
  });

  it('a server it cannot reach: the MCP servers are still listed, the problem is named, exit 4', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await run(['--json', '--url', url, '--token', token]);
    expect(result.code).toBe(4);
    const report = JSON.parse(result.stdout) as ListingsReport;
    expect(report.sources.map((source) => source.source)).toEqual(['mcp:docs']);
    expect(report.problems).toEqual([
      { source: 'workers', error: expect.stringContaining(`cannot reach the Wardrik server at ${url}`) },
    ]);
  });
});
