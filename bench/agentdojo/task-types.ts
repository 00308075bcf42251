// The shapes of a ported suite: its tools (functions of the environment, as AgentDojo's), its
// user tasks and injection tasks (prompt or goal, ground-truth calls, state check), and the suite.
import type { Annotations } from '@wardrik/core';

/** A call to one of a suite's functions, as AgentDojo's `FunctionCall`. */
export interface FunctionCall {
  readonly function: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** `FunctionCall(function=…, args=…)`. */
export function call(name: string, args: Record<string, unknown> = {}): FunctionCall {
  return { function: name, args };
}

/** One of a suite's functions, with the honest annotations it gets as a Wardrik tool. */
export interface SuiteFunction<Env> {
  readonly name: string;
  readonly description: string;
  /** A JSON Schema object for its arguments. */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly annotations: Readonly<Pick<Annotations, 'readOnly' | 'destructive' | 'idempotent' | 'openWorld'>>;
  /** Whether its answer carries text that nobody on the user's side wrote (labelled `outside`). */
  readonly outside: boolean;
  /** Runs it on the environment, changing it as AgentDojo's function does; throws as it raises. */
  readonly run: (env: Env, args: Record<string, unknown>) => unknown;
  /** How its result is shown to the model (`model`: YAML, as a pydantic model or list of them). */
  readonly shows?: 'model' | 'plain';
}

export interface CheckInput<Env> {
  readonly output: string;
  readonly pre: Env;
  readonly post: Env;
  readonly traces: readonly FunctionCall[];
}

export interface UserTask<Env> {
  readonly id: string;
  readonly prompt: string;
  readonly groundTruthOutput: string;
  readonly groundTruth: (pre: Env) => FunctionCall[];
  /** `utility(model_output, pre, post, strict)`. */
  readonly utility: (output: string, pre: Env, post: Env, strict: boolean) => boolean;
  /** `utility_from_traces`, where the task has one (undefined means: use `utility`). */
  readonly utilityFromTraces?: (input: CheckInput<Env>) => boolean | undefined;
  readonly initEnvironment?: (env: Env) => Env;
}

export interface InjectionTask<Env> {
  readonly id: string;
  readonly goal: string;
  readonly groundTruthOutput: string;
  readonly groundTruth: (pre: Env) => FunctionCall[];
  /** `security(model_output, pre, post)`: true when the attacker's goal was reached. */
  readonly security: (output: string, pre: Env, post: Env) => boolean;
  readonly securityFromTraces?: (input: CheckInput<Env>) => boolean | undefined;
}

export interface Suite<Env> {
  readonly name: string;
  readonly functions: ReadonlyArray<SuiteFunction<Env>>;
  /** Builds the environment from its loaded YAML data (as pydantic's model_validate). */
  readonly environment: (data: unknown) => Env;
  readonly userTasks: ReadonlyArray<UserTask<Env>>;
  readonly injectionTasks: ReadonlyArray<InjectionTask<Env>>;
}

/** A user task made of two, as AgentDojo's TaskCombinator does. */
export function combinedTask<Env>(id: string, first: UserTask<Env>, second: UserTask<Env>): UserTask<Env> {
  return {
    id,
    prompt: `Perform the following tasks in the order they are given: 1. ${first.prompt} 2. ${second.prompt}`,
    groundTruthOutput: `1. ${first.groundTruthOutput} 2.${second.groundTruthOutput}`,
    groundTruth: (pre) => [...first.groundTruth(pre), ...second.groundTruth(pre)],
    utility: (output, pre, post) => first.utility(output, pre, post, false) && second.utility(output, pre, post, true),
  };
}
