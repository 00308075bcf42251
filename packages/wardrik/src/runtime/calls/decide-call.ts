import { type Answer, type Arguments, error, type Tool } from '@wardrik/core';
import { isTransferTool } from '../../agents/transfer.js';
import type { CallState } from '../../journal/state.js';
import { callFacts, type Decision, decide } from '../policy.js';
import { argumentsFromTheUser } from '../provenance.js';
import { NOT_DURABLE } from '../run/run-writer.js';
import type { CallScope, CallTarget } from './call-scope.js';
import { SETTLED } from './resolve-call.js';
import { beforeTool } from './tool-callbacks.js';

/** What deciding a call says: the rule it runs under (undefined: none decided, e.g. no tool), or `SETTLED`. */
export type Ruling = string | undefined | typeof SETTLED;

/** Answers a call whose arguments the model gave malformed, if they were (then the call is settled). */
export function refuseInvalid(run: CallScope, call: CallState): Promise<typeof SETTLED> | undefined {
  if (call.invalidArguments === undefined || call.status !== 'requested') return undefined;
  const reason = `Invalid arguments for tool "${call.name}": ${call.invalidArguments}`;
  return refuse(run, call, { answer: error(reason, { code: 'invalid_arguments' }) });
}

/**
 * Whether (and under which rule) a call runs: the agent's `beforeTool` callback first (it may
 * answer the call or change its arguments), then a transfer's refusal, then the policy — a gate
 * parks the call for a person, a deny answers it. An approved call runs as approved, a resumed
 * one as it was. Synchronous unless the callback or a write is awaited.
 */
export function decideCall(run: CallScope, target: CallTarget): Ruling | Promise<Ruling> {
  const { call, tool, resumed } = target;
  if (!resumed && !call.approval && call.changedBy === undefined && run.agent.callbacks.beforeTool) {
    return beforeTool(run, { call, tool }).then((answered) => (answered ? SETTLED : judge(run, target)));
  }
  return judge(run, target);
}

function judge(run: CallScope, { call, tool, resumed }: CallTarget): Ruling | Promise<Ruling> {
  if (call.approval) return 'approved';
  if (resumed) return 'recovered';
  if (!tool) return undefined;
  if (isTransferTool(tool)) {
    const refusal = run.transferRefusal();
    if (refusal) return refuse(run, call, { answer: error(refusal, { code: 'transfer_refused' }) });
  }
  const decision = policyDecision(run, tool, call);
  if (decision.verdict === 'gate') {
    return run.park('approval', decision.reason, { call, rule: decision.rule }).then(() => SETTLED);
  }
  if (decision.verdict === 'deny') {
    const refused = error(`Refused by policy (${decision.rule}): ${decision.reason}`, { code: 'denied' });
    return refuse(run, call, { answer: refused, rule: decision.rule });
  }
  return decision.rule;
}

/** The policy's decision on a call; standing decisions of a person turn a gate into an allow. */
function policyDecision(run: CallScope, tool: Tool<Arguments>, call: CallState): Decision {
  const { state, agent, deps } = run;
  const facts = callFacts(tool, call.arguments, {
    labels: state.labels,
    agent: agent.name,
    principal: state.principal,
  });
  const decision = decide(facts, [agent.policy, deps.policy], {
    fromTheUser: () => argumentsFromTheUser(call.arguments, tool, state),
  });
  if (decision.verdict !== 'gate') return decision;
  if (state.allowedTools.has(tool.name)) {
    return { verdict: 'allow', rule: 'allowed-for-run', reason: 'a person allowed this tool for this run' };
  }
  if (deps.isAllowedForAgent?.(agent.name, tool.name)) {
    return { verdict: 'allow', rule: 'allowed-for-agent', reason: 'a person allowed this tool for this agent' };
  }
  return decision;
}

/** Answers `call` without running it. */
async function refuse(
  run: CallScope,
  call: CallState,
  { answer, rule }: { readonly answer: Answer; readonly rule?: string },
): Promise<typeof SETTLED> {
  await run.writer.write([run.answered(call, answer, rule ? { rule } : undefined)], NOT_DURABLE);
  return SETTLED;
}
