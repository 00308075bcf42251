import {
  type Answer,
  addMeasures,
  error,
  type Label,
  type Measures,
  mergeLabels,
  repeatable,
  type StateChange,
} from '@wardrik/core';
import { agentOfTool, CHILD_RUNNER } from '../../agents/agent-tool.js';
import { JOURNAL_VERSION, type JournalRecord, type StoredRecord } from '../../journal/records.js';
import { backoffDelay, sleep } from '../backoff.js';
import { DURABLE, NOT_DURABLE } from '../run/run-writer.js';
import { type Attempt, attemptCall, type CallServicesRequest, onlyTool } from './attempt-call.js';
import { attemptOutcome, describeAnswer } from './call-outcomes.js';
import { sampleForCall } from './call-sampling.js';
import type { CallScope, CallTarget } from './call-scope.js';
import { childRunner } from './child-runner.js';
import { SETTLED } from './resolve-call.js';

/** How a call's attempts came out, for `settleCall`. */
export interface Tried {
  /** The call's answer (a failure naming the attempts when retries ran out). */
  readonly answer: Answer;
  /** What every attempt reported spending. */
  readonly spent: Measures;
  /** The state the call wrote, when it answered on its own (not lost, and not retried to the end). */
  readonly stateChanges: readonly StateChange[];
  readonly repeatable: boolean;
  /** What any answer of this call carries, also one a person gives in its place: the tool's `labels` annotation. */
  readonly promised: readonly Label[] | undefined;
}

const NO_CHANGES: readonly StateChange[] = Object.freeze([]);

/** A call as its attempts run it: what is the same for every attempt. */
interface Plan {
  readonly target: CallTarget;
  readonly repeatable: boolean;
  readonly promised: readonly Label[] | undefined;
  readonly idempotencyKey: string;
  /** What the tool finds on its context that only Wardrik gives (an agent tool's child runner). */
  readonly privates: ReadonlyMap<unknown, unknown> | undefined;
}

/**
 * Runs a call: journals its intent (durably when it is not repeatable), attempts it, and retries
 * what may be retried with backoff. A call that is not repeatable and timed out or was lost parks
 * `in_doubt`; a cancel answers it. Resolves to how it came out, or `SETTLED`.
 */
export async function attemptWithRetries(run: CallScope, target: CallTarget): Promise<Tried | typeof SETTLED> {
  const plan = planOf(run, target);
  const { attempts, baseDelayMs, maxDelayMs } = run.deps.toolRetry;
  const hooks = run.deps.hooks;
  let spent = {};
  for (let tries = 1; ; tries++) {
    const [intent] = await writeIntent(run, plan);
    const began = hooks.has('call-attempt-ended') ? performance.now() : 0;
    const outcome = await attempt(run, plan, intent);
    if (hooks.has('call-attempt-ended')) attemptEnded(run, { target, outcome, began });
    // Questions the call left open: it has its outcome now, nobody waits for their answers.
    if (run.inputs.anyOpen && !run.stopping()) await run.inputs.withdrawAll('the call ended', target.call.callId);
    if (outcome.kind === 'cancelled') return cancelled(run, target);
    // A worker that went away or stopped answering: the call may or may not have run.
    const lost = outcome.kind === 'answered' && outcome.answer.type === 'error' && outcome.answer.code === 'lost';
    const retryable =
      plan.repeatable &&
      (outcome.kind === 'timeout' || lost || (outcome.answer.type === 'error' && outcome.answer.code === 'thrown'));
    const partial = outcome.kind === 'timeout' ? outcome.answerSoFar : outcome.answer;
    spent = addMeasures(spent, partial.measures);
    if ((outcome.kind === 'timeout' || lost) && !plan.repeatable) return inDoubt(run, { plan, outcome, partial });
    if (retryable && tries < attempts) {
      await sleep(backoffDelay({ attempts, baseDelayMs, maxDelayMs }, tries), run.abort.signal).catch(() => {});
      if (run.abort.aborted) return cancelled(run, target);
      continue;
    }
    let answer: Answer = outcome.kind === 'answered' ? outcome.answer : partial;
    if (retryable) answer = retriesExhausted({ outcome, partial, tries });
    const stateChanges = outcome.kind === 'answered' && !retryable && !lost ? outcome.stateChanges : NO_CHANGES;
    return { answer, spent, stateChanges, repeatable: plan.repeatable, promised: plan.promised };
  }
}

function planOf(run: CallScope, target: CallTarget): Plan {
  const { call, tool, resumed } = target;
  const idempotencyKey = call.idempotencyKey || `${run.runId}:${call.callId}`;
  return {
    target,
    repeatable: resumed ? call.repeatable : tool ? repeatable(tool) : true,
    promised: resumed ? call.labels : tool?.annotations.labels?.length ? tool.annotations.labels : undefined,
    idempotencyKey,
    privates:
      tool && agentOfTool(tool)
        ? new Map<unknown, unknown>([[CHILD_RUNNER, childRunner(run, call, idempotencyKey)]])
        : undefined,
  };
}

/** Journals the intent of an attempt (durably when the call is not repeatable). Not async: no await of its own. */
function writeIntent(run: CallScope, plan: Plan): Promise<readonly StoredRecord[]> {
  const { call, rule } = plan.target;
  const record: JournalRecord = {
    v: JOURNAL_VERSION,
    at: run.deps.now(),
    type: 'call-started',
    callId: call.callId,
    name: call.name,
    arguments: call.arguments,
    idempotencyKey: plan.idempotencyKey,
    repeatable: plan.repeatable,
    attempt: call.attempts + 1,
    rule, // undefined when none: JSON leaves it out
    labels: plan.promised,
    // Who runs a call that may end in doubt: if this node loses the run, a person is told.
    holder: plan.repeatable ? undefined : run.holder(),
  };
  return run.writer.write([record], plan.repeatable ? NOT_DURABLE : DURABLE);
}

/** The answer of a call whose retries ran out. */
function retriesExhausted({ outcome, partial, tries }: { outcome: Attempt; partial: Answer; tries: number }): Answer {
  const why = outcome.kind === 'timeout' ? `timed out after ${outcome.ms} ms` : describeAnswer(partial);
  return error(`failed after ${tries} attempt${tries > 1 ? 's' : ''}: ${why}`, {
    code: outcome.kind === 'timeout' ? 'timeout' : 'retries_exhausted',
    labels: partial.labels,
  });
}

/** Attempts the call once (hooks told it started). Not async: it adds no await of its own. */
function attempt(run: CallScope, plan: Plan, intent: StoredRecord | undefined): Promise<Attempt> {
  const { call, tool, values } = plan.target;
  const { idempotencyKey, privates } = plan;
  const { state, agent, deps } = run;
  const hooks = deps.hooks;
  if (hooks.has('call-attempt-started')) attemptStarted(run, plan);
  const services = deps.callServices;
  const scope: CallServicesRequest = {
    runId: run.runId,
    app: state.app,
    principal: state.principal,
    sessionId: state.sessionId,
    idempotencyKey,
  };
  return attemptCall({
    tools: tool ? onlyTool(call.name, tool) : agent.tools,
    callId: call.callId,
    name: call.name,
    arguments: call.arguments,
    runId: run.runId,
    agent: agent.name,
    principal: state.principal,
    idempotencyKey,
    // A later attempt (on this node or the one that takes the run over) has a higher one.
    fencingToken: intent?.seq,
    // Plain fields, absent ones undefined: conditional spreads cost ~1 µs a property on every call.
    privates,
    traceContext: hooks.tracing
      ? hooks.attemptTrace({ runId: run.runId, callId: call.callId, attempt: call.attempts })
      : undefined,
    labels: state.labels,
    approval: call.approval,
    requestInput: (question, signal) => run.inputs.ask(call, question, signal),
    sample: (request, signal) =>
      sampleForCall({
        model: agent.model,
        runId: run.runId,
        request,
        step: state.steps,
        signal,
        budgetReached: () => run.budgetReached(),
      }),
    run: run.abort,
    onProgress: (progress) => run.emitProgress(call, progress),
    sessionId: state.sessionId,
    state: values,
    stateWriteRefusal: (key) => run.stateWriteRefusal(key),
    completeExternal: deps.completeExternal,
    requestInputFor: deps.requestInputFor,
    memory: services && (() => services.memoryFor(scope)),
    artifacts: services && (() => services.artifactsFor(scope)),
  });
}

function attemptStarted(run: CallScope, plan: Plan): void {
  const { call, tool } = plan.target;
  run.deps.hooks.emit('call-attempt-started', {
    runId: run.runId,
    agent: run.agent.name,
    trace: run.state.trace,
    step: run.state.steps,
    callId: call.callId,
    modelCallId: call.modelCallId,
    tool: call.name,
    definition: tool,
    attempt: call.attempts,
    repeatable: plan.repeatable,
    idempotencyKey: plan.idempotencyKey,
    arguments: call.arguments,
  });
}

/** Tells hooks how an attempt ended (`began`: when it started, by `performance.now()`). */
function attemptEnded(
  run: CallScope,
  { target, outcome, began }: { readonly target: CallTarget; readonly outcome: Attempt; readonly began: number },
): void {
  const { call } = target;
  run.deps.hooks.emit('call-attempt-ended', {
    runId: run.runId,
    agent: run.agent.name,
    trace: run.state.trace,
    step: run.state.steps,
    callId: call.callId,
    tool: call.name,
    attempt: call.attempts,
    durationMs: performance.now() - began,
    ...attemptOutcome(outcome),
  });
}

/** A call that is not repeatable timed out or was lost: it may have run, so a person says whether it did. */
async function inDoubt(
  run: CallScope,
  { plan, outcome, partial }: { readonly plan: Plan; readonly outcome: Attempt; readonly partial: Answer },
): Promise<typeof SETTLED> {
  const why =
    outcome.kind === 'timeout'
      ? `the call timed out after ${outcome.ms} ms and may have run`
      : `the worker running the call was lost (${describeAnswer(partial).replace(/^Lost: /, '')}) and it may have run`;
  const carried = mergeLabels(plan.promised, partial.labels);
  await run.park('in_doubt', `${why}; say whether it ran`, {
    call: plan.target.call,
    measures: partial.measures,
    external: carried.length ? { resultLabels: carried } : {},
  });
  return SETTLED;
}

/** The run was cancelled while the call ran or waited to retry: it is answered so (unless the process stops). */
async function cancelled(run: CallScope, { call }: CallTarget): Promise<typeof SETTLED> {
  if (run.stopping()) return SETTLED;
  await run.writer.write([run.answered(call, error('the run was cancelled', { code: 'cancelled' }))], NOT_DURABLE);
  return SETTLED;
}
