import { type CompiledSchema, compileSchema, describeReason, type SchemaInput } from '@wardrik/core';
import { AgentDefinitionError } from '../errors.js';
import type { CallbackRun } from '../runtime/callbacks.js';

/**
 * A check of a run's input (before its first model step) or of its final answer (before the
 * run completes), as OpenAI Agents' guardrails: it answers `{ tripped: true, reason }` to stop
 * the run, which then ends `failed` with an error naming the guardrail and its reason
 * (journaled on `run-ended`). Anything else lets the run go on. A guardrail that throws trips
 * (fail closed). It may be slow (a model of its own): nothing of the run acts before an input
 * guardrail has passed, and a final answer reaches nobody before its output guardrails pass.
 *
 * @example
 * ```ts
 * const noSecrets: Guardrail = {
 *   name: 'no-secrets',
 *   check: ({ text }) => (/sk-[A-Za-z0-9]{20,}/.test(text) ? { tripped: true, reason: 'an API key' } : undefined),
 * }
 * defineAgent({ name: 'support', instructions: '…', model, guardrails: { input: [noSecrets], output: [noSecrets] } })
 * ```
 */
export interface Guardrail {
  /** Named in the run's error and journal. */
  readonly name: string;
  check(input: {
    readonly text: string;
    readonly run: CallbackRun;
  }): GuardrailVerdict | undefined | Promise<GuardrailVerdict | undefined>;
}

/** What a guardrail says: tripped (the run stops), or not. */
export interface GuardrailVerdict {
  readonly tripped: boolean;
  readonly reason?: string;
}

/** An agent's guardrails. */
export interface Guardrails {
  /** Checked on the run's input before its first model step. */
  readonly input?: readonly Guardrail[];
  /** Checked on the final answer before the run completes. */
  readonly output?: readonly Guardrail[];
}

/** A guardrail that tripped, as `run-ended` journals it. */
export interface TrippedGuardrail {
  readonly name: string;
  readonly stage: 'input' | 'output';
  readonly reason: string;
}

/** The guardrails of `stage` run in turn on `text`: the first that trips, or undefined. */
export async function firstTripped(
  guardrails: readonly Guardrail[],
  stage: 'input' | 'output',
  text: string,
  run: CallbackRun,
): Promise<TrippedGuardrail | undefined> {
  for (const guardrail of guardrails) {
    let verdict: GuardrailVerdict | undefined;
    try {
      verdict = await guardrail.check({ text, run });
    } catch (thrown) {
      return { name: guardrail.name, stage, reason: `the guardrail failed: ${describeReason(thrown)}` };
    }
    if (verdict?.tripped === true) return { name: guardrail.name, stage, reason: verdict.reason ?? 'no reason given' };
  }
  return undefined;
}

/** The run's error for a guardrail that tripped. */
export function trippedError(tripped: TrippedGuardrail): string {
  return `the ${tripped.stage} guardrail ${tripped.name} stopped the run: ${tripped.reason}`;
}

/** Checks an agent's guardrails option; throws `AgentDefinitionError` naming the field. */
export function checkedGuardrails(guardrails: unknown, agent: string): Required<Guardrails> {
  if (guardrails === undefined) return { input: [], output: [] };
  if (typeof guardrails !== 'object' || guardrails === null) {
    throw new AgentDefinitionError(
      `agent ${agent}: guardrails must be an object such as { input: [...], output: [...] }`,
    );
  }
  const checked: { input: Guardrail[]; output: Guardrail[] } = { input: [], output: [] };
  for (const [stage, list] of Object.entries(guardrails)) {
    if (stage !== 'input' && stage !== 'output') {
      throw new AgentDefinitionError(`agent ${agent}: guardrails.${stage}: unknown stage (expected input, output)`);
    }
    if (!Array.isArray(list)) throw new AgentDefinitionError(`agent ${agent}: guardrails.${stage} must be an array`);
    for (const [index, each] of list.entries()) {
      const guardrail = each as Partial<Guardrail> | null;
      if (typeof guardrail?.name !== 'string' || guardrail.name === '' || typeof guardrail.check !== 'function') {
        throw new AgentDefinitionError(
          `agent ${agent}: guardrails.${stage}[${index}] must be { name, check(input) } with a non-empty name`,
        );
      }
      checked[stage].push(guardrail as Guardrail);
    }
  }
  return checked;
}

/** An agent's output schema, compiled once; throws `AgentDefinitionError` naming what is wrong. */
export function compiledOutputSchema(schema: SchemaInput | undefined, agent: string): CompiledSchema | undefined {
  if (schema === undefined) return undefined;
  try {
    return compileSchema(schema);
  } catch (thrown) {
    throw new AgentDefinitionError(`agent ${agent}: outputSchema: ${describeReason(thrown)}`, { cause: thrown });
  }
}

/**
 * A final answer checked against the agent's output schema: the value (defaults filled), or why
 * it does not match, as the model is told. The text is JSON, optionally in a ```json fence.
 */
export async function checkFinalAnswer(
  schema: CompiledSchema,
  text: string,
): Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced(text));
  } catch {
    return { ok: false, reason: 'it is not JSON' };
  }
  let checked = schema.validate(parsed);
  if (checked instanceof Promise) checked = await checked;
  if (checked.ok) return { ok: true, value: checked.value };
  const issues = checked.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  return { ok: false, reason: issues.join('; ') };
}

/** The JSON of a final answer: the text, or what a ```json fence around all of it holds. */
export function unfenced(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return fenced ? (fenced[1] as string) : text;
}

/**
 * The checked final answer of a completed run of an agent with an `outputSchema`, typed from it
 * (its defaults filled in); undefined for a run that did not complete. (The run checked it before
 * completing; this parses it again the same way.) For an agent without one, the output text.
 *
 * @example
 * ```ts
 * const result = await wardrik.run('triage', 'My parcel never came!')
 * const verdict = await outputOf(triage, result) // { queue: 'billing' | 'shipping'; urgent: boolean } | undefined
 * ```
 */
export async function outputOf<Output>(
  agent: { readonly output?: CompiledSchema; readonly outputType?: Output; readonly name: string },
  result: { readonly status: string; readonly output?: string },
): Promise<Output | undefined> {
  if (result.status !== 'completed' || result.output === undefined) return undefined;
  if (!agent.output) return result.output as Output;
  const checked = await checkFinalAnswer(agent.output, result.output);
  if (!checked.ok) {
    throw new TypeError(
      `outputOf: the run's output does not match agent ${agent.name}'s outputSchema: ${checked.reason}`,
    );
  }
  return checked.value as Output;
}
