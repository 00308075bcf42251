import type { Task } from '@modelcontextprotocol/sdk/types.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { ParkRow, RunRow } from '../store/store.js';

/**
 * A run as an MCP task: the task id is the run id, so the task outlives the session and the node
 * that started it, and any node sharing the store answers for it. `input_required` while a park
 * waits that this client would be asked about (`askable`: `tasks/result` asks) — a call's question
 * while the run runs included — else `working`
 * (running, or waiting for people in the console or for outside work, as `statusMessage` says);
 * then `completed`, `failed` or `cancelled` as the run ended. Runs are kept: `ttl` is null.
 *
 * @example
 * ```ts
 * const task = await runTask(wardrik, await wardrik.getRunSummary(runId), { pollInterval: 1000, askable: () => true })
 * // { taskId: 'run_01…', status: 'input_required', statusMessage: 'waiting for a person: needs a manager', … }
 * ```
 */
export async function runTask(
  wardrik: Wardrik,
  run: RunRow,
  options: { readonly pollInterval: number; readonly askable: (park: ParkRow) => boolean },
): Promise<Task> {
  const { pollInterval } = options;
  const base = {
    taskId: run.id,
    ttl: null,
    createdAt: new Date(run.createdAt).toISOString(),
    lastUpdatedAt: new Date(run.updatedAt).toISOString(),
    pollInterval,
  };
  switch (run.status) {
    case 'running': {
      // A call's question (an `input` park) this client would be asked: `tasks/result` asks it.
      const questions = await wardrik.listParks({ runId: run.id, status: 'open', kind: 'input' });
      const asked = questions.find(options.askable);
      if (asked)
        return { ...base, status: 'input_required', statusMessage: `waiting for your answer: ${asked.reason}` };
      return { ...base, status: 'working' };
    }
    case 'parked': {
      const parks = await wardrik.listParks({ runId: run.id, status: 'open' });
      const asked = parks.find(options.askable);
      if (asked)
        return { ...base, status: 'input_required', statusMessage: `waiting for your answer: ${asked.reason}` };
      const [first] = parks;
      const waiting =
        first === undefined
          ? 'resuming'
          : first.kind === 'external'
            ? `waiting for outside work: ${first.reason}`
            : `waiting for a person (console, CLI): ${first.reason}`;
      return { ...base, status: 'working', statusMessage: waiting };
    }
    case 'completed':
      return { ...base, status: 'completed' };
    case 'failed':
      return { ...base, status: 'failed', statusMessage: run.error ?? 'failed' };
    case 'cancelled':
      return { ...base, status: 'cancelled', statusMessage: run.error ?? 'cancelled' };
  }
}
