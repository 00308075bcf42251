import type { Arguments, Tool } from '@wardrik/core';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import { InvalidParkAnswerError } from '../../errors.js';
import type { RunState } from '../../journal/state.js';
import type { SessionStore } from '../../store/session-store.js';
import { stateScopesOf } from '../../store/session-store.js';
import { ToolResolver } from '../../tool-sources/tool-resolver.js';
import { isStandIn } from '../../tool-sources/tool-source-facts.js';
import type { WorkerHub } from '../../workers/worker-hub.js';
import { StateValues } from '../run/state-values.js';

/** What finding the tool of a parked call needs. */
export interface EditCheckDeps {
  readonly agents: AgentDirectory;
  readonly workers: WorkerHub | undefined;
  readonly store: Pick<SessionStore, 'loadState'>;
  /** How long a toolset may take to list its tools. */
  readonly toolsetTimeoutMs: number;
}

/**
 * Checks a person's edited arguments for a parked call against the schema of the tool the call
 * names (the run's own, a toolset's, an MCP server's or a worker's, found as the run's next step
 * would find it), so that an edit the tool would refuse is refused now, naming each field that
 * is wrong, while the park stays open. A tool that can't be found now (its worker or server is
 * away) can't be checked: the edit is refused, saying so.
 *
 * @example
 * ```ts
 * await checkEditedArguments(deps, runState, 'refund', { order_id: 'A1', amount: 'lots' })
 * // throws InvalidParkAnswerError: decision.arguments: amount: expected number, got string "lots"
 * ```
 */
export async function checkEditedArguments(
  deps: EditCheckDeps,
  run: RunState,
  toolName: string,
  edited: Record<string, unknown>,
): Promise<void> {
  const tool = await toolOfCall(deps, run, toolName);
  if (!tool) {
    throw new InvalidParkAnswerError(
      `decision.arguments: the edit can't be checked: tool ${toolName} is not offered to run ${run.runId} now (its worker or server may be away); approve or deny the call as it is, or edit again later`,
    );
  }
  let checked = tool.schema.validate(edited);
  if (checked instanceof Promise) checked = await checked;
  if (checked.ok) return;
  const problems = checked.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  throw new InvalidParkAnswerError(`decision.arguments: tool ${toolName} would refuse them: ${problems.join('; ')}`);
}

/** The tool a call of `run` named, as the run's next step would find it (its step agent's). */
async function toolOfCall(deps: EditCheckDeps, run: RunState, toolName: string): Promise<Tool<Arguments> | undefined> {
  const agent = deps.agents.get(run.stepAgent);
  if (!agent) return undefined;
  const resolver = new ToolResolver(agent, deps.workers, deps.toolsetTimeoutMs, deps.agents.addedTools(agent.name));
  if (!resolver.fixed) {
    const stored = await deps.store.loadState(stateScopesOf(run));
    await resolver.resolve({
      runId: run.runId,
      principal: run.principal,
      sessionId: run.sessionId,
      step: run.steps,
      labels: run.labels,
      state: new StateValues(run, stored),
      signal: AbortSignal.timeout(deps.toolsetTimeoutMs),
    });
  }
  const tool = resolver.find(toolName);
  return tool && !isStandIn(tool) ? tool : undefined;
}
