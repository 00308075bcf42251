import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Agent,
  createWardrik,
  type JournalRecord,
  sqliteStore,
  type Wardrik,
  type WardrikOptions,
} from '../src/index.js';

/** A fresh SQLite file path in a new temp dir. */
export function tempDbPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'wardrik-test-')), 'wardrik.db');
}

/** A runtime on a real SQLite file, with quick retries for tests. */
export async function openWardrik(
  path: string,
  agents: readonly Agent[],
  options: Partial<WardrikOptions> = {},
): Promise<Wardrik> {
  return createWardrik({
    store: sqliteStore(path),
    agents,
    toolRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
    modelRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

/** Resolves when `check` is true, polling. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The `model-step` records of a journal, in order. */
export function modelSteps(journal: readonly { record: JournalRecord }[]) {
  return journal.flatMap(({ record }) => (record.type === 'model-step' ? [record] : []));
}

/** How long after the trigger an operation is sent. */
export type Delay = { readonly microtasks: number } | 'immediate' | 'timer';
export const DELAYS: ReadonlyArray<readonly [string, Delay]> = (
  [
    { microtasks: 0 },
    { microtasks: 1 },
    { microtasks: 2 },
    { microtasks: 3 },
    { microtasks: 4 },
    { microtasks: 5 },
    'immediate',
    'timer',
  ] as const
).map((delay) => [describeDelay(delay), delay] as const);

export function after(delay: Delay, action: () => void): void {
  if (delay === 'immediate') setImmediate(action);
  else if (delay === 'timer') setTimeout(action, 0);
  else {
    let left = delay.microtasks;
    const step = () => (left-- > 0 ? queueMicrotask(step) : action());
    queueMicrotask(step);
  }
}

export function describeDelay(delay: Delay): string {
  return typeof delay === 'string' ? delay : `${delay.microtasks} microtasks`;
}
