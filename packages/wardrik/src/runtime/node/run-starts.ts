import { describeReason, type Label } from '@wardrik/core';
import { type Agent, checkBudget } from '../../agent.js';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { ChildRunRequest } from '../../agents/child-runs.js';
import { InvalidInputError, StoreError } from '../../errors.js';
import {
  type Budget,
  JOURNAL_VERSION,
  type ParentLink,
  type RunStartedRecord,
  type StateWrite,
} from '../../journal/records.js';
import { emptyState } from '../../journal/state.js';
import type { Hooks } from '../hooks.js';
import { timeOrderedId } from '../ids.js';
import type { DriverDeps } from '../run/driver-deps.js';
import { RunDriver } from '../run/run-driver.js';
import type { Sessions } from '../sessions.js';
import type { StartOptions } from '../wardrik-options.js';
import type { HeldRuns } from './held-runs.js';
import type { NodeHealth } from './node-health.js';
import type { Ownership } from './ownership.js';

/** What starting runs needs from the node. */
export interface RunStartsDeps {
  readonly agents: AgentDirectory;
  readonly sessions: Sessions;
  readonly held: HeldRuns;
  readonly ownership: Ownership;
  readonly hooks: Hooks;
  readonly health: NodeHealth;
  readonly driverDeps: DriverDeps;
}

/** How a run starts: what its `run-started` record says, and whether it is on disk before the start resolves. */
interface Beginning {
  readonly input: string;
  readonly principal: string;
  readonly budget: Budget;
  readonly session?: string;
  readonly history?: RunStartedRecord['history'];
  readonly labels?: readonly Label[];
  readonly parent?: ParentLink;
  /** Whose `user:` and `app:` state the run reads, when not its agent's (a child run: its parent's). */
  readonly app?: string;
  /** The run-only state it starts with (a child run: its parent's). */
  readonly state?: readonly StateWrite[];
  readonly durable: boolean;
}

/** Starts runs on this node: a person's or an app's (checked input), and the child runs of agent tools. */
export class RunStarts {
  readonly #deps: RunStartsDeps;

  constructor(deps: RunStartsDeps) {
    this.#deps = deps;
  }

  /**
   * Starts a run. `durable`: its start is on disk before this resolves (a barrier: `start` returns
   * an id someone may keep). `run` needs none: its caller learns nothing until the run parks or
   * ends, so the start rides to disk with the run's first real barrier (a call's intent, a park,
   * its end); a crash before that loses a run nobody was told of.
   */
  async start(
    agentName: string,
    input: string,
    options: StartOptions,
    { durable }: { readonly durable: boolean },
  ): Promise<{ runId: string }> {
    this.#deps.health.checkTakingWork();
    const agent = this.#deps.agents.require(agentName);
    if (typeof input !== 'string' || input.trim() === '') {
      throw new InvalidInputError('input: expected a non-empty message for the agent');
    }
    const principal = options.principal ?? 'local';
    if (typeof principal !== 'string' || principal === '')
      throw new InvalidInputError('principal: expected a non-empty string');
    const budget = startBudget(agent, options.budget);
    const runId = timeOrderedId('run');
    const session =
      options.session === undefined
        ? undefined
        : await this.#deps.sessions.takeTurn(options.session, agent, principal, runId);
    await this.#begin(agent, runId, {
      input,
      principal,
      budget,
      ...(options.session === undefined ? {} : { session: options.session }),
      ...(session?.history.length ? { history: session.history } : {}),
      ...(session?.labels.length ? { labels: [...session.labels] } : {}),
      // A session names its turn's run as soon as it is taken: that run is on disk at once.
      durable: durable || options.session !== undefined,
    });
    return { runId };
  }

  /** Starts the child run of a call of an agent tool (see `agentTool`), with the parent's labels and what is left of its budget. */
  async startChild(request: ChildRunRequest): Promise<void> {
    this.#deps.health.checkOpen();
    const agent = this.#deps.agents.require(request.agent);
    const budget: { -readonly [K in keyof Budget]: Budget[K] } = { ...agent.budget };
    for (const key of ['usd', 'tokens'] as const) {
      const left = request.budget[key];
      if (left !== undefined) budget[key] = Math.min(left, budget[key] ?? left);
    }
    await this.#begin(agent, request.childRunId, {
      input: request.input,
      principal: request.principal,
      budget,
      ...(request.labels.length ? { labels: [...request.labels] } : {}),
      parent: request.parent,
      // The child shares its parent's invocation: session, app and run-only state.
      ...(request.session === undefined ? {} : { session: request.session }),
      app: request.app,
      ...(request.state.length ? { state: request.state } : {}),
      // The parent journaled the child's id durably, and a repeated call starts it again if lost.
      durable: false,
    });
  }

  /** Journals a run's start (durably, or with the run's next barrier) and drives it. */
  async #begin(agent: Agent, runId: string, start: Beginning): Promise<void> {
    const { held, hooks, driverDeps } = this.#deps;
    const driver = new RunDriver(agent, emptyState(runId), driverDeps);
    const trace = hooks.runTrace({ runId, agent: agent.name, ...(start.parent ? { parent: start.parent } : {}) });
    held.drivers.set(runId, driver);
    // Held until it is driven: a cancel sent as soon as run-started is seen waits, then finds it driven.
    const release = await held.locks.acquire(runId);
    try {
      driver.lease = await this.#deps.ownership.claim(runId);
      if (!driver.lease) throw new StoreError(`run ${runId} is new, yet another node holds its lease`);
      await driver.begin(startRecord(agent, start, trace, driverDeps.now()), { durable: start.durable });
    } catch (cause) {
      held.drivers.delete(runId);
      release();
      if (hooks.has('run-start-failed')) {
        // Telemetry ends what it began for the run (its span), and logs why.
        hooks.emit('run-start-failed', {
          runId,
          agent: agent.name,
          ...(trace ? { trace } : {}),
          error: describeReason(cause),
        });
      }
      this.#deps.health.failIfStore(cause);
      throw cause;
    }
    held.drive(driver, { fresh: true });
    release();
  }
}

/** The agent's budget, with the limits a start gives in its place (checked). */
function startBudget(agent: Agent, given: Budget | undefined): Budget {
  if (given === undefined) return agent.budget;
  try {
    return { ...agent.budget, ...checkBudget(given, 'budget') };
  } catch (cause) {
    throw new InvalidInputError((cause as Error).message, { cause });
  }
}

/** A run's first record. */
function startRecord(agent: Agent, start: Beginning, trace: RunStartedRecord['trace'], at: number): RunStartedRecord {
  return {
    v: JOURNAL_VERSION,
    at,
    type: 'run-started',
    agent: agent.name,
    principal: start.principal,
    input: start.input,
    budget: start.budget,
    maxSteps: agent.maxSteps,
    app: start.app ?? agent.app,
    ...(start.session === undefined ? {} : { session: start.session }),
    ...(start.history ? { history: start.history } : {}),
    ...(start.labels ? { labels: start.labels } : {}),
    ...(start.parent ? { parent: start.parent } : {}),
    ...(start.state ? { state: start.state } : {}),
    ...(trace ? { trace } : {}),
  };
}
