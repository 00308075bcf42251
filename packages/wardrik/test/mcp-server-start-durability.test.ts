/*
 * When a run's start is on disk (issue 27's benchmark: /mcp starts a call that is not a task
 * without a barrier). Real child processes (mcp-server-start-child.ts) on a real SQLite file whose
 * queued writes wait a minute for their flush (and whose claim pass, a read that commits them, ten
 * minutes), killed with SIGKILL; the parent reads the file after.
 * - `start(…, { durable: false })`: a crash before the run's first barrier leaves no run; the
 *   default (durable) start leaves the run, found running.
 * - Over /mcp: a call made as a task is answered with its run's id only once that run is on disk;
 *   a call that is not a task (its client learns nothing before the end) neither waits for its
 *   run's start to be on disk nor reads the store while the run goes on (a read commits what is
 *   queued): the node dying before the run's first barrier leaves no run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from './mcp-server-env.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const childPath = fileURLToPath(new URL('./mcp-server-start-child.ts', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'wardrik-start-durability-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;

/** A fresh SQLite file and notes file for one child. */
function fresh(): { readonly db: string; readonly notes: string } {
  files += 1;
  return { db: join(directory, `${files}.db`), notes: join(directory, `${files}.notes`) };
}

interface Child {
  /** Resolves with the signal that ended the child (and its stderr, to name a failure). */
  readonly exited: Promise<{ readonly signal: NodeJS.Signals | null; readonly stderr: string }>;
  kill(): void;
}

function spawnChild(args: readonly string[]): Child {
  const child = spawn(process.execPath, ['--conditions=@wardrik/source', '--import', 'tsx', childPath, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // Only a guard against a child that hangs, not a time limit on work.
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return {
    exited: new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (_code, signal) => {
        clearTimeout(guard);
        resolve({ signal, stderr });
      });
    }),
    kill: () => child.kill('SIGKILL'),
  };
}

function notesOf(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The runs the file holds (id and status), read after its process died. */
function runsIn(db: string): { id: string; status: string }[] {
  const database = new Database(db, { readonly: true });
  try {
    return database.prepare('SELECT id, status FROM runs').all() as { id: string; status: string }[];
  } finally {
    database.close();
  }
}

describe('start({ durable })', () => {
  it.each([
    ['durable (the default)', 'durable', true],
    ['non-durable', 'non-durable', false],
  ] as const)('%s: SIGKILL right after start resolves', async (_label, durability, kept) => {
    const { db, notes } = fresh();
    const { signal, stderr } = await spawnChild([db, notes, 'start', durability]).exited;
    expect(signal, stderr).toBe('SIGKILL');
    const runId = notesOf(notes).find((line) => typeof line.runId === 'string')?.runId;
    expect(runId, stderr).toEqual(expect.any(String));
    expect(runsIn(db)).toEqual(kept ? [{ id: runId, status: 'running' }] : []);
  });
});

describe('/mcp', () => {
  async function serving(): Promise<{ child: Child; client: Client; db: string; notes: string }> {
    const { db, notes } = fresh();
    const child = spawnChild([db, notes, 'serve']);
    let failed: string | undefined;
    void child.exited.then(({ stderr }) => {
      failed = stderr || 'the child exited';
    });
    await until(() => {
      if (failed !== undefined) throw new Error(failed);
      return notesOf(notes).some((line) => typeof line.url === 'string');
    });
    const { url, token } = notesOf(notes).find((line) => typeof line.url === 'string') as {
      url: string;
      token: string;
    };
    const client = new Client({ name: 'wardrik-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return { child, client, db, notes };
  }

  it('a task: its run is on disk when the task is answered', async () => {
    const { child, client, db } = await serving();
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'slow', arguments: { input: 'go' }, task: {} } },
      CreateTaskResultSchema,
    );
    child.kill();
    expect((await child.exited).signal).toBe('SIGKILL');
    await client.close().catch(() => {});
    expect(runsIn(db)).toEqual([{ id: task.taskId, status: 'running' }]);
  });

  it('a call that is not a task: the node dying before the run’s first barrier leaves no run', async () => {
    const { child, client, db, notes } = await serving();
    const call = client.callTool({ name: 'slow', arguments: { input: 'go' } }).catch((error: unknown) => error);
    // The run was started and driven: its model was asked (and never answers).
    await until(() => notesOf(notes).some((line) => line.generating === true));
    child.kill();
    expect((await child.exited).signal).toBe('SIGKILL');
    // Closing the client fails the call it was waiting on (its stream died with the node).
    await client.close().catch(() => {});
    expect(await call).toBeInstanceOf(Error);
    expect(runsIn(db)).toEqual([]);
  });
});
