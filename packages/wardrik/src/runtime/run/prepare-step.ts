import { type Label, mergeLabels } from '@wardrik/core';
import type { Agent } from '../../agent.js';
import type { UnpinnedTool } from '../../journal/records.js';
import type { OfferedTools } from '../../tool-sources/tool-offer.js';
import type { CallScope } from '../calls/call-scope.js';
import { renderInstructions } from '../instructions.js';

/** What a model step is given. */
export interface PreparedStep {
  readonly instructions: string;
  readonly offered: OfferedTools;
  readonly labels: readonly Label[];
  /** The tool definitions from outside that brought the step labels the run did not carry yet. */
  readonly unpinned?: readonly UnpinnedTool[];
}

/** The labels of a step whose tools read no state (fixed tools, instructions without `{key}`). */
const NO_LABELS: readonly Label[] = Object.freeze([]);

/** Prepares each model step of a run: its instructions, the tools offered now, and the labels they carried. */
export class StepPreparer {
  readonly #run: CallScope;
  /** What each step is given, while the run is under an agent whose tools and instructions never change. */
  #fixed: { readonly agent: Agent; readonly prepared: PreparedStep } | undefined;

  constructor(run: CallScope) {
    this.#run = run;
  }

  /**
   * What every model step of an agent with fixed tools and plain instructions is given (made once
   * per agent the run is under); undefined for any other agent.
   */
  fixedStep(): PreparedStep | undefined {
    const { agent, tools } = this.#run;
    if (agent.templated || !tools.fixed) return undefined;
    if (this.#fixed?.agent !== agent) {
      const offered = tools.fixedOffer();
      this.#fixed = { agent, prepared: { instructions: agent.instructions, offered, labels: NO_LABELS } };
    }
    return this.#fixed.prepared;
  }

  /** What the next model step is given: instructions with state rendered, the tools offered now, and the labels they carried. */
  async prepareStep(): Promise<PreparedStep> {
    const run = this.#run;
    const agent = run.agent;
    const values = await run.stateValues();
    const rendered = agent.templated ? renderInstructions(agent.instructions, values) : undefined;
    const { offered, labels, unpinned } = await run.resolveTools(values);
    return {
      instructions: rendered ? rendered.text : agent.instructions,
      offered,
      labels: mergeLabels(rendered?.labels, labels),
      ...(unpinned ? { unpinned } : {}),
    };
  }
}

export function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}
