/*
 * An MCP task outlives its node (real processes, SIGKILL): a task is a run, so after the node that
 * started it is killed mid-task and a new one starts on the same store, a new session's
 * tasks/result still returns the result — and the call that was not safe to repeat ran once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connectClient, until } from './mcp-server-env.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const nodePath = fileURLToPath(new URL('./mcp/serve-node.ts', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'wardrik-mcp-restart-'));
const files = {
  database: join(directory, 'wardrik.db'),
  execLog: join(directory, 'exec.log'),
  go: join(directory, 'go'),
  token: join(directory, 'admin-token'),
};
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

/** Starts a node; resolves with it once it listens, with its URL and the admin token. */
async function startNode(): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=@wardrik/source', '--import', 'tsx', nodePath, files.database, files.execLog, files.go, files.token],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  let ready: { url: string; token: string } | undefined;
  await until(() => {
    if (child.exitCode !== null) throw new Error(`the node exited:\n${stderr}`);
    const line = stdout.split('\n').find((each) => each.includes('"ready"'));
    if (line) ready = JSON.parse(line) as { url: string; token: string };
    return ready !== undefined;
  }, 60_000);
  if (!ready) throw new Error('not ready');
  return { child, ...ready };
}

function execLog(): string[] {
  try {
    return readFileSync(files.execLog, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('an MCP task across a crash of its node', () => {
  it('SIGKILL mid-task, restart: tasks/result from a new session returns the result; the charge ran once', async () => {
    const first = await startNode();
    const before = await connectClient(`${first.url}/mcp`, first.token);
    const created = await before.client.request(
      { method: 'tools/call', params: { name: 'orders', arguments: { input: 'charge and wait' }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    // Charged (its answer on disk), and waiting in a read-only call when the node dies.
    await until(() => execLog().some((line) => line.startsWith('wait ')), 60_000);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const second = await startNode();
    const after = await connectClient(`${second.url}/mcp`, second.token);
    expect(await after.client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    const result = after.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    writeFileSync(files.go, 'go');
    expect(await result).toMatchObject({
      content: [{ type: 'text', text: 'charged once, and done' }],
      _meta: { 'wardrik/run': { runId: taskId, status: 'completed' } },
    });
    expect(await after.client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'completed' });
    const charges = execLog().filter((line) => line.startsWith('charge '));
    expect(charges).toHaveLength(1);
    // The wait was read-only: the new node made it again after taking the run over.
    expect(execLog().filter((line) => line.startsWith('wait ')).length).toBe(2);
    await after.close();
    second.child.kill('SIGTERM');
  }, 120_000);
});
