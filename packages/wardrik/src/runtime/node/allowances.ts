import { RunNotFoundError } from '../../errors.js';
import type { ParkRow, Store } from '../../store/store.js';
import type { NodeHealth } from './node-health.js';

/**
 * Standing decisions: the tools a person allowed for an agent (`remember: 'agent'`), kept in the
 * store and known to every node (each claim pass loads them again).
 */
export class Allowances {
  readonly #allowed = new Map<string, Set<string>>();
  readonly #store: Store;
  readonly #health: NodeHealth;

  constructor(store: Store, health: NodeHealth) {
    this.#store = store;
    this.#health = health;
  }

  /** Loads the standing decisions from the store. */
  async load(): Promise<void> {
    for (const allowance of await this.#store.listAllowances()) this.#remember(allowance.agent, allowance.tool);
  }

  /** Whether a person allowed `tool` for `agent`. */
  has(agent: string, tool: string): boolean {
    return this.#allowed.get(agent)?.has(tool) === true;
  }

  /** Records a person's standing decision for the park's tool and the agent of its run. */
  async rememberFor(park: Pick<ParkRow, 'id' | 'runId' | 'call'>, by: string): Promise<void> {
    if (!park.call) return;
    const run = await this.#store.getRun(park.runId);
    if (!run) throw new RunNotFoundError(`no run ${JSON.stringify(park.runId)}`);
    const allowance = { agent: run.agent, tool: park.call.name, by, at: Date.now(), parkId: park.id };
    await this.#health.guard(this.#store.putAllowance(allowance));
    this.#remember(run.agent, park.call.name);
  }

  #remember(agent: string, tool: string): void {
    let tools = this.#allowed.get(agent);
    if (!tools) {
      tools = new Set();
      this.#allowed.set(agent, tools);
    }
    tools.add(tool);
  }
}
