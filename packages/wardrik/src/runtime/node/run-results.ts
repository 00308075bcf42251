import type { RunState } from '../../journal/state.js';
import type { ParkRow, RunRow, Store } from '../../store/store.js';
import type { RunResult } from '../run-result.js';

/** How a run held in memory stands, as those who wait for it are told. */
export function stateResult(state: RunState): RunResult {
  const parks: ParkRow[] = [];
  for (const park of state.parks.values()) if (park.status === 'open') parks.push({ ...park, status: 'open' });
  return {
    runId: state.runId,
    status: state.status,
    ...(state.output === undefined ? {} : { output: state.output }),
    ...(state.error === undefined ? {} : { error: state.error }),
    labels: state.labels,
    measures: state.measures,
    parks,
  };
}

/** How a run stands as its row in the store says (with its open parks, if it is parked). */
export async function rowResult(store: Store, row: RunRow): Promise<RunResult> {
  const parks = row.status === 'parked' ? await store.listParks({ runId: row.id, status: 'open' }) : [];
  return {
    runId: row.id,
    status: row.status,
    ...(row.output === undefined ? {} : { output: row.output }),
    ...(row.error === undefined ? {} : { error: row.error }),
    labels: row.labels,
    measures: row.measures,
    parks,
  };
}
