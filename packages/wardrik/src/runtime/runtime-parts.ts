import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { CompleteExternal, RequestInputFor } from '@wardrik/core';
import { AgentDirectory } from '../agents/agent-directory.js';
import { runChild } from '../agents/child-runs.js';
import { AgentDefinitionError, InvalidInputError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { WorkerHub } from '../workers/worker-hub.js';
import { defaultModelRetry, defaultToolRetry } from './backoff.js';
import type { EventHub } from './events.js';
import { ExternalWorkDesk } from './external-work.js';
import type { Hooks } from './hooks.js';
import { Allowances } from './node/allowances.js';
import { ParkAnswers } from './node/park-answers.js';
import { askForWork, withdrawQuestion } from './node/question-writes.js';
import { RunNode } from './node/run-node.js';
import { checkPolicy } from './policy.js';
import { checkRetention } from './retention-rules.js';
import { Retention } from './retention-sweep.js';
import type { DriverDeps } from './run/driver-deps.js';
import type { RunResult } from './run-result.js';
import { Services } from './services.js';
import { Sessions } from './sessions.js';
import type { WardrikOptions } from './wardrik-options.js';
import { WorkQuestions } from './work-questions.js';

const DEFAULT_LEASE_MS = 5_000;
const DEFAULT_MAX_RUNS = 10_000;
const DEFAULT_CLAIM_INTERVAL_MS = 500;

/** The parts the `Wardrik` facade is made of. */
export interface RuntimeParts {
  readonly agents: AgentDirectory;
  readonly services: Services;
  readonly sessions: Sessions;
  /** The runs this node holds. */
  readonly node: RunNode;
  /** Standing decisions: tools a person allowed for an agent. */
  readonly allowances: Allowances;
  readonly external: ExternalWorkDesk;
  /** Questions a person is asked for long-running work (`requestInputFor`). */
  readonly workQuestions: WorkQuestions;
  readonly answers: ParkAnswers;
  readonly retention: Retention;
  /** This node's name, as its leases name it. */
  readonly nodeName: string;
  readonly leaseMs: number;
}

/** What the facade shares with its parts: its store, hooks, event hub and workers, and its own entry points. */
export interface SharedParts {
  readonly store: Store;
  readonly hooks: Hooks;
  readonly hub: EventHub;
  readonly workers: WorkerHub;
  /**
   * The facade's entry points the parts call back (a tool's `completeExternal`, a child run's wait),
   * so that they pass the same checks as a caller's.
   */
  readonly entries: {
    readonly completeExternal: CompleteExternal;
    readonly requestInputFor: RequestInputFor;
    readonly wait: (runId: string) => Promise<RunResult>;
    readonly cancel: (runId: string, reason: string) => Promise<RunResult>;
  };
}

/** Makes the runtime's parts from its options, each wired to the others (checking the options as it goes). */
export function assembleRuntime(options: WardrikOptions, shared: SharedParts): RuntimeParts {
  if (!Array.isArray(options.agents)) throw new AgentDefinitionError('agents: expected an array of agents');
  const { store, hooks } = shared;
  const agents = new AgentDirectory(options.agents);
  const now = options.now ?? Date.now;
  const services = new Services({
    store,
    memory: options.memory,
    artifacts: options.artifacts,
    now,
    agent: (name) => agents.require(name),
  });
  // Only then: a listener to every run's events would make every run build events nobody reads.
  if (services.remembersRuns) hooks.on('run-ended', (event) => services.runEnded(event.runId));
  // Made below; the closures handed out before read them only once the runtime runs.
  let parts: RuntimeParts | undefined;
  const built = () => parts as RuntimeParts;
  const driverDeps = driverDepsFor(options, { ...shared, agents, services, now, parts: built });
  const sessions = new Sessions({
    store,
    now,
    agent: (name) => agents.require(name),
    runState: (runId) => built().node.loader.runState(runId),
  });
  const leaseMs = checkedLeaseMs(options.leaseMs ?? DEFAULT_LEASE_MS);
  const nodeName = options.node ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const node = new RunNode({
    store,
    hooks,
    hub: shared.hub,
    agents,
    sessions,
    driverDeps,
    terms: { node: nodeName, incarnation: driverDeps.incarnation, leaseMs },
    maxRuns: options.maxRuns ?? DEFAULT_MAX_RUNS,
    claimIntervalMs: options.claimIntervalMs ?? DEFAULT_CLAIM_INTERVAL_MS,
    loadAllowances: () => built().allowances.load(),
    complete: (handle, outcome, completion) => built().external.complete(handle, outcome, completion),
  });
  const retention = new Retention({
    store,
    node: nodeName,
    now,
    agents: agents.all().map((agent) => ({ name: agent.name, app: agent.app })),
    options: checkRetention(options.retention, 'retention'),
  });
  parts = { agents, services, sessions, node, retention, nodeName, leaseMs, ...answering(shared, node, driverDeps) };
  tellWorkerConnections(shared.workers, hooks);
  return parts;
}

/** Tells hooks of workers that connect and disconnect. */
function tellWorkerConnections(workers: WorkerHub, hooks: Hooks): void {
  workers.onConnection((event) => {
    if (event.type === 'connected' && hooks.has('worker-connected')) {
      hooks.emit('worker-connected', { worker: event.worker, principal: event.principal });
    } else if (event.type === 'disconnected' && hooks.has('worker-disconnected')) {
      hooks.emit('worker-disconnected', { worker: event.worker, principal: event.principal, reason: event.reason });
    }
  });
}

/** The parts that answer parks and ask questions for work: the desk of external work, questions, allowances, answers. */
function answering(
  shared: SharedParts,
  node: RunNode,
  driverDeps: DriverDeps,
): Pick<RuntimeParts, 'allowances' | 'external' | 'workQuestions' | 'answers'> {
  const { store } = shared;
  const allowances = new Allowances(store, node.health);
  let answers: ParkAnswers | undefined;
  const external = new ExternalWorkDesk({
    store,
    now: driverDeps.now,
    answer: (park, decision, by) =>
      (answers as ParkAnswers).answerRead(park, decision, { callHash: park.callHash, by }, { carried: true }),
    onWaiting: (parks) => node.children.settleChildren(parks),
    onError: (error) => node.health.failIfStore(error),
  });
  const workQuestions = new WorkQuestions({
    findWork: (handle) => external.openPark(handle),
    open: (work, question) => askForWork(node, work, question),
    getPark: (parkId) => store.getPark(parkId),
    withdraw: (park, reason) => withdrawQuestion(node, park, reason),
    onAppended: (runId, listener) => node.watch.onAppended(runId, listener),
  });
  const editCheck = {
    agents: driverDeps.agents,
    workers: shared.workers,
    store,
    toolsetTimeoutMs: driverDeps.toolsetTimeoutMs,
  };
  answers = new ParkAnswers({
    store,
    node,
    allowances,
    editCheck,
    now: driverDeps.now,
    questionAnswered: (parkId, decision) => workQuestions.answered(parkId, decision),
  });
  return { allowances, external, workQuestions, answers };
}

/** What every run's driver is given; its callbacks reach the other parts (child runs, external work, questions). */
function driverDepsFor(
  options: WardrikOptions,
  context: SharedParts & {
    readonly agents: AgentDirectory;
    readonly services: Services;
    readonly now: () => number;
    readonly parts: () => RuntimeParts;
  },
): DriverDeps {
  const { store, entries, parts } = context;
  return {
    store,
    hub: context.hub,
    // This process's life as its node: leases and the calls that may end in doubt name it.
    incarnation: randomUUID(),
    toolRetry: { ...defaultToolRetry, ...options.toolRetry },
    modelRetry: { ...defaultModelRetry, ...options.modelRetry },
    now: context.now,
    durableAnswers: options.durableAnswers ?? true,
    workers: context.workers,
    ...(options.policy ? { policy: checkPolicy(options.policy, 'policy') } : {}),
    isAllowedForAgent: (agent, tool) => parts().allowances.has(agent, tool),
    toolsetTimeoutMs: checkedMs(options.toolsetTimeoutMs ?? 10_000, 'toolsetTimeoutMs'),
    onExternalPark: (park) => parts().external.parked(park),
    completeExternal: entries.completeExternal,
    requestInputFor: entries.requestInputFor,
    agents: context.agents,
    hooks: context.hooks,
    callServices: context.services,
    runChild: (request) =>
      runChild(
        {
          exists: async (runId) => (await store.getRun(runId)) !== undefined,
          start: (child) => parts().node.starts.startChild(child),
          wait: entries.wait,
          cancel: entries.cancel,
        },
        request,
      ),
    childStateWrites: (childRunId) => parts().node.children.childStateWrites(childRunId),
  };
}

/** A lease length of at least 10 ms, or an `InvalidInputError` naming the setting. */
function checkedLeaseMs(leaseMs: number): number {
  if (!Number.isFinite(leaseMs) || leaseMs < 10) {
    throw new InvalidInputError(`leaseMs: expected a number of ms of at least 10, got ${String(leaseMs)}`);
  }
  return leaseMs;
}

/** A positive number of ms, or an `InvalidInputError` naming the setting. */
function checkedMs(value: unknown, setting: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(`${setting}: expected a positive number of ms, got ${String(value)}`);
  }
  return value;
}
