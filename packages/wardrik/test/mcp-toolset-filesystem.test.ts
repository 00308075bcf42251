/*
 * mcpToolset against `@modelcontextprotocol/server-filesystem` over stdio, on a temporary
 * directory: its tools as the model sees them, reads and writes through them, and its refusals.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, createContext, getPrivate, repeatable, StateView, type Tool, type ToolsetContext } from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import { MCP_TOOLSET_TOOL, type McpToolsetToolInfo } from '../src/toolsets/mcp-toolset-tool.js';

const FILESYSTEM = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

const context: ToolsetContext = {
  runId: 'r1',
  agentName: 'helper',
  principal: 'carol',
  step: 1,
  labels: [],
  state: new StateView(),
  signal: new AbortController().signal,
};

function callContext() {
  return createContext({ runId: 'r1', agent: 'helper', principal: 'carol', callId: 'c1.0', idempotencyKey: 'r1:c1.0' });
}

let directory: string;
let files: McpToolset;
let tools: readonly Tool<never>[];
beforeAll(async () => {
  directory = realpathSync(mkdtempSync(join(tmpdir(), 'wardrik-mcp-fs-')));
  writeFileSync(join(directory, 'notes.txt'), 'remember the milk\n');
  files = mcpToolset({ name: 'fs', command: process.execPath, args: [FILESYSTEM, directory] });
  tools = await files.tools(context);
});
afterAll(async () => {
  await files?.close();
  rmSync(directory, { recursive: true, force: true });
});

function find(name: string): Tool<never> {
  const found = tools.find((each) => each.name === name);
  if (!found) throw new Error(`no tool ${name} among ${tools.map((each) => each.name).join(', ')}`);
  return found;
}

describe('server-filesystem over stdio', () => {
  it('offers its tools as fs__NAME, read-only only where the server says so', () => {
    const names = tools.map((each) => each.name);
    expect(names).toEqual(
      expect.arrayContaining(['fs__read_text_file', 'fs__write_file', 'fs__list_directory', 'fs__edit_file']),
    );
    const read = find('fs__read_text_file');
    expect(read.schema.jsonSchema).toMatchObject({ properties: { path: { type: 'string' } }, required: ['path'] });
    expect(read.annotations).toMatchObject({ readOnly: true, labels: ['outside'] });
    expect(getPrivate<McpToolsetToolInfo | undefined>(read, MCP_TOOLSET_TOOL, undefined)).toEqual({
      toolset: 'fs',
      server: `${process.execPath} ${FILESYSTEM} ${directory}`,
      mcpName: 'read_text_file',
      readOnly: true,
    });
    const write = find('fs__write_file');
    expect(write.annotations).toMatchObject({ readOnly: false, destructive: true });
    expect(getPrivate<McpToolsetToolInfo | undefined>(write, MCP_TOOLSET_TOOL, undefined)?.readOnly).toBe(false);
    const edit = find('fs__edit_file');
    expect(repeatable(edit)).toBe(false);
  });

  it('reads and writes files in its directory; answers are labelled outside', async () => {
    const read = await call(
      tools,
      { id: 'c1.0', name: 'fs__read_text_file', arguments: { path: join(directory, 'notes.txt') } },
      callContext(),
    );
    expect(read).toMatchObject({ type: 'ok', labels: ['outside'] });
    expect(JSON.stringify(read.type === 'ok' ? read.value : null)).toContain('remember the milk');

    const written = await call(
      tools,
      { id: 'c1.0', name: 'fs__write_file', arguments: { path: join(directory, 'out.txt'), content: 'hello' } },
      callContext(),
    );
    expect(written).toMatchObject({ type: 'ok' });
    expect(readFileSync(join(directory, 'out.txt'), 'utf8')).toBe('hello');
  });

  it("a path outside its directory is the server's error answer; missing arguments never reach it", async () => {
    const outside = await call(
      tools,
      { id: 'c1.0', name: 'fs__read_text_file', arguments: { path: '/etc/passwd' } },
      callContext(),
    );
    expect(outside).toMatchObject({ type: 'error', labels: ['outside'] });
    if (outside.type !== 'error') throw new Error('expected an error');
    expect(outside.reason).toMatch(/denied|outside allowed/i);
    expect(outside.code).toBeUndefined();

    const missing = await call(
      tools,
      { id: 'c1.0', name: 'fs__write_file', arguments: { content: 'x' } },
      callContext(),
    );
    expect(missing).toMatchObject({ type: 'error', code: 'invalid_arguments', labels: [] });
    if (missing.type !== 'error') throw new Error('expected an error');
    expect(missing.reason).toMatch(/path: is required/);
  });
});
