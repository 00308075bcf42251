// Compares the port with AgentDojo's own Python run (reference/python-v1.json, made by
// reference/harness.py on the original code): task counts, each user task's ground-truth calls and
// the injection vectors it reads, its own utility check, and — for every security case played
// undefended — utility, security and whether the attack was read. Returns every difference.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEnvironmentData } from './load-environment.ts';
import { replayCase } from './replay.ts';
import { caseEnvironment, copyEnvironment, injectionCandidates } from './suite-runtime.ts';
import type { Suite } from './task-types.ts';

interface ReferenceSuite {
  userTasks: Record<string, { utility: boolean; candidates: string[]; groundTruth: unknown }>;
  injectionTasks: Record<string, { groundTruth: unknown }>;
  cases: Record<string, [boolean, boolean, boolean]>;
}

export function reference(): Record<string, ReferenceSuite> {
  const path = join(dirname(fileURLToPath(import.meta.url)), 'reference', 'python-v1.json');
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** JSON with keys sorted, so that key order does not count. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );
}

function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

export interface FidelityReport {
  readonly suite: string;
  readonly userTasks: number;
  readonly injectionTasks: number;
  readonly groundTruthsPassing: number;
  readonly cases: number;
  readonly differences: string[];
}

/** Every way the port differs from the original on `suite` (none, when faithful). */
export function compareWithReference<Env>(suite: Suite<Env>, options: { cases?: boolean } = {}): FidelityReport {
  const expected = reference()[suite.name];
  if (!expected) throw new Error(`no reference for ${suite.name}`);
  const differences: string[] = [];
  const ids = suite.userTasks.map((each) => each.id).sort();
  if (!same(ids, Object.keys(expected.userTasks).sort())) differences.push(`user task ids: ${ids.join(',')}`);
  const injectionIds = suite.injectionTasks.map((each) => each.id).sort();
  if (!same(injectionIds, Object.keys(expected.injectionTasks).sort()))
    differences.push(`injection task ids: ${injectionIds.join(',')}`);
  let groundTruthsPassing = 0;
  for (const task of suite.userTasks) {
    const want = expected.userTasks[task.id];
    if (!want) continue;
    const calls = task.groundTruth(copyEnvironment(caseEnvironment(suite, task)));
    if (!same(calls, want.groundTruth))
      differences.push(`${task.id} ground truth: ${JSON.stringify(calls)} vs ${JSON.stringify(want.groundTruth)}`);
    const candidates = injectionCandidates(suite, task);
    if (!same(candidates.sort(), [...want.candidates].sort()))
      differences.push(`${task.id} injection vectors: ${candidates} vs ${want.candidates}`);
    const { utility } = replayCase(suite, task);
    if (utility) groundTruthsPassing += 1;
    if (utility !== want.utility)
      differences.push(`${task.id} ground truth passes its check: ${utility} (Python: ${want.utility})`);
  }
  for (const task of suite.injectionTasks) {
    const want = expected.injectionTasks[task.id];
    const calls = task.groundTruth(suite.environment(loadEnvironmentData(suite.name)));
    if (!same(calls, want?.groundTruth))
      differences.push(`${task.id} ground truth: ${JSON.stringify(calls)} vs ${JSON.stringify(want?.groundTruth)}`);
  }
  let cases = 0;
  if (options.cases !== false) {
    for (const task of suite.userTasks) {
      for (const attack of suite.injectionTasks) {
        const key = `${task.id}|${attack.id}`;
        const want = expected.cases[key];
        const got = replayCase(suite, task, attack);
        cases += 1;
        if (!want || got.utility !== want[0] || got.security !== want[1] || got.attacked !== want[2]) {
          differences.push(
            `${key}: utility ${got.utility}, security ${got.security}, attacked ${got.attacked} (Python: ${want})`,
          );
        }
      }
    }
  }
  return {
    suite: suite.name,
    userTasks: suite.userTasks.length,
    injectionTasks: suite.injectionTasks.length,
    groundTruthsPassing,
    cases,
    differences,
  };
}
