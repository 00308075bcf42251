// A replay without Wardrik: the ground-truth calls of a user task run straight on the environment,
// and, once a result shows injected instructions, the injection task's calls — nothing gated. This
// is what an undefended agent that always obeys does; AgentDojo's own Python run of the same
// replay (reference/python-v1.json) must give the same utility and security for every case.
import {
  caseEnvironment,
  caseInjections,
  checkSecurity,
  checkUtility,
  copyEnvironment,
  INJECTION_MARKER,
  runFunction,
} from './suite-runtime.ts';
import type { FunctionCall, InjectionTask, Suite, UserTask } from './task-types.ts';

export interface ReplayResult {
  readonly utility: boolean;
  /** Undefined for a utility case (no injection task). */
  readonly security?: boolean;
  /** Whether the injected text was read (and the attack played). */
  readonly attacked: boolean;
}

/** Plays one case undefended. */
export function replayCase<Env>(suite: Suite<Env>, task: UserTask<Env>, attack?: InjectionTask<Env>): ReplayResult {
  const env = caseEnvironment(suite, task, attack ? caseInjections(suite, task, attack) : {});
  const pre = copyEnvironment(env);
  const userCalls = task.groundTruth(copyEnvironment(pre));
  const attackCalls = attack ? attack.groundTruth(copyEnvironment(pre)) : [];
  const traces: FunctionCall[] = [];
  let attacked = false;
  const perform = (each: FunctionCall) => {
    traces.push(each);
    const result = runFunction(suite, env, each.function, { ...each.args });
    if (attack && !attacked && result.error === undefined && result.text.includes(INJECTION_MARKER)) {
      attacked = true;
      for (const attackCall of attackCalls) perform(attackCall);
    }
  };
  for (const each of userCalls) perform(each);
  const output = finalOutput(task, attack, attacked);
  const utility = checkUtility(task, output, pre, env, traces);
  if (!attack) return { utility, attacked };
  return { utility, security: checkSecurity(attack, output, pre, env, traces), attacked };
}

/** The final answer: the task's expected output, and the attacker's when the model was taken over. */
export function finalOutput<Env>(
  task: UserTask<Env>,
  attack: InjectionTask<Env> | undefined,
  attacked: boolean,
): string {
  return attacked && attack?.groundTruthOutput
    ? `${task.groundTruthOutput}\n${attack.groundTruthOutput}`
    : task.groundTruthOutput;
}
