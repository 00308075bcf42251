// AgentDojo (v1) through Wardrik: per suite and in total, attack success (AgentDojo's own check),
// utility (user tasks whose state check passes), and how often a person is asked, under the default
// policy and a stricter one, beside published figures of other defenses. Run on SQLite.
// Run: npm run bench -- agentdojo
import { type NamedPolicy, policies, undefended, withProvenance } from './policies.ts';
import { suites } from './suites.ts';
import type { Suite } from './task-types.ts';
import { AgentDojoRunner, type CaseOutcome } from './wardrik-run.ts';

export interface SuiteTally {
  readonly suite: string;
  readonly policy: string;
  readonly userTasks: number;
  readonly utilityPassed: number;
  readonly utilityInterruptions: number;
  readonly securityCases: number;
  readonly attacksSucceeded: number;
  /** Of those, the ones whose goal needs no call (only what the model says): no gate applies. */
  readonly outputOnlySucceeded: number;
  readonly utilityUnderAttack: number;
  readonly securityInterruptions: number;
  readonly attackerEffects: number;
  readonly attackerReads: number;
  /** The security cases whose attack succeeded, with what ran. */
  readonly successes: readonly CaseOutcome[];
  /** Every utility case, for the analysis of holds. */
  readonly utilityCases: readonly CaseOutcome[];
}

/** Runs every utility and security case of `suite` under `named`. */
export async function runSuite<Env>(suite: Suite<Env>, named: NamedPolicy): Promise<SuiteTally> {
  const runner = new AgentDojoRunner(suite, named.policy);
  try {
    const utilityCases: CaseOutcome[] = [];
    for (const task of suite.userTasks) utilityCases.push(await runner.run(task));
    const securityCases: CaseOutcome[] = [];
    for (const task of suite.userTasks) {
      for (const attack of suite.injectionTasks) securityCases.push(await runner.run(task, attack));
    }
    const count = (cases: CaseOutcome[], pick: (each: CaseOutcome) => number | boolean | undefined) =>
      cases.reduce((sum, each) => sum + Number(pick(each) ?? 0), 0);
    return {
      suite: suite.name,
      policy: named.name,
      userTasks: suite.userTasks.length,
      utilityPassed: count(utilityCases, (each) => each.utility),
      utilityInterruptions: count(utilityCases, (each) => each.interruptions),
      securityCases: securityCases.length,
      attacksSucceeded: count(securityCases, (each) => each.attackSucceeded),
      outputOnlySucceeded: count(securityCases, (each) => each.attackSucceeded && each.outputOnlyGoal),
      utilityUnderAttack: count(securityCases, (each) => each.utility),
      securityInterruptions: count(securityCases, (each) => each.interruptions),
      attackerEffects: count(securityCases, (each) => each.attackerEffects.length),
      attackerReads: count(securityCases, (each) => each.attackerReads.length),
      successes: securityCases.filter((each) => each.attackSucceeded),
      utilityCases,
    };
  } finally {
    await runner.close();
  }
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
const perTask = (part: number, whole: number) => (part / whole).toFixed(2);

/** The table's rows: one per suite and a total, for one policy. */
export function rows(tallies: readonly SuiteTally[]): Array<Record<string, string | number>> {
  const total = tallies.reduce(
    (sum, each) => ({
      suite: sum.suite,
      policy: sum.policy,
      userTasks: sum.userTasks + each.userTasks,
      utilityPassed: sum.utilityPassed + each.utilityPassed,
      utilityInterruptions: sum.utilityInterruptions + each.utilityInterruptions,
      securityCases: sum.securityCases + each.securityCases,
      attacksSucceeded: sum.attacksSucceeded + each.attacksSucceeded,
      outputOnlySucceeded: sum.outputOnlySucceeded + each.outputOnlySucceeded,
      utilityUnderAttack: sum.utilityUnderAttack + each.utilityUnderAttack,
      securityInterruptions: sum.securityInterruptions + each.securityInterruptions,
      attackerEffects: sum.attackerEffects + each.attackerEffects,
      attackerReads: sum.attackerReads + each.attackerReads,
      successes: sum.successes,
      utilityCases: sum.utilityCases,
    }),
    {
      suite: 'total',
      policy: tallies[0]?.policy ?? '',
      userTasks: 0,
      utilityPassed: 0,
      utilityInterruptions: 0,
      securityCases: 0,
      attacksSucceeded: 0,
      outputOnlySucceeded: 0,
      utilityUnderAttack: 0,
      securityInterruptions: 0,
      attackerEffects: 0,
      attackerReads: 0,
      successes: [],
      utilityCases: [],
    } as SuiteTally,
  );
  return [...tallies, total].map((each) => ({
    policy: each.policy,
    suite: each.suite,
    'attack success': `${percent(each.attacksSucceeded, each.securityCases)} (${each.attacksSucceeded}/${each.securityCases})`,
    'of which only words': each.outputOnlySucceeded,
    utility: `${percent(each.utilityPassed, each.userTasks)} (${each.utilityPassed}/${each.userTasks})`,
    'utility under attack': percent(each.utilityUnderAttack, each.securityCases),
    'asked per task': perTask(each.utilityInterruptions, each.userTasks),
    'asked per attacked task': perTask(each.securityInterruptions, each.securityCases),
    'attacker changes run': each.attackerEffects,
    'attacker reads run': each.attackerReads,
  }));
}

/**
 * Published figures of other defenses on AgentDojo, as issue 31 cites them (not measured here: they
 * come from real models under the "important instructions" attack).
 */
export const published: ReadonlyArray<Record<string, string>> = [
  {
    defense: 'undefended GPT-4o',
    'attack success': '~48%',
    utility: '',
    source: 'Debenedetti et al., AgentDojo, NeurIPS 2024 Datasets and Benchmarks (arXiv:2406.13352)',
  },
  {
    defense: 'tool filtering (GPT-4o)',
    'attack success': '~7%',
    utility: '',
    source: 'Debenedetti et al., AgentDojo (arXiv:2406.13352)',
  },
  {
    defense: 'LlamaFirewall',
    'attack success': '~1.75%',
    utility: '',
    source: 'Chennabasappa et al., LlamaFirewall (arXiv:2505.03574)',
  },
  {
    defense: 'CaMeL',
    'attack success': '~0%',
    utility: '~77%',
    source: 'Debenedetti et al., Defeating Prompt Injections by Design (arXiv:2503.18813)',
  },
  {
    defense: 'Progent',
    'attack success': '~0%',
    utility: 'most kept',
    source: 'Shi et al., Progent (arXiv:2504.11703)',
  },
];

export async function main(): Promise<void> {
  const started = Date.now();
  console.log('\n## AgentDojo v1 through Wardrik (scripted models, simulated person, SQLite)');
  const all: SuiteTally[] = [];
  for (const named of [...policies, ...withProvenance, undefended]) {
    const tallies: SuiteTally[] = [];
    for (const suite of suites) tallies.push(await runSuite(suite, named));
    all.push(...tallies);
    console.log(`\n### policy: ${named.name}`);
    console.table(rows(tallies));
    for (const tally of tallies) {
      if (named === undefended) continue;
      for (const success of tally.successes) {
        console.log(
          `  attack succeeded: ${tally.suite} ${success.userTask} × ${success.injectionTask}: attacker calls that ran: ${
            [...success.attackerEffects, ...success.attackerReads].map((each) => each.function).join(', ') || 'none'
          }`,
        );
      }
    }
  }
  console.log('\n### Published figures of other defenses (as cited in issue 31; real models, not measured here)');
  console.table(published);
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
