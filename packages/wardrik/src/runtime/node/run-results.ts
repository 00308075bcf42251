import type { RunState } from '../../journal/state.js';
import type { ParkRow, RunRow, Store } from '../../store/store.js';
import type { RunResult } from '../run-result.js';

/** How a run held in memory stands, as those who wait for it are told. */
export function stateResult(state: RunState): RunResult {
  const parks: ParkRow[] = [];
  for (const park of state.parks.values()) if (park.status === 'open') parks.push({ ...park, status: 'open' });
  return resultOf(state.runId, state, parks);
}

/** How a run stands as its row in the store says (with its open parks, if it is parked). */
export async function rowResult(store: Store, row: RunRow): Promise<RunResult> {
  const parks = row.status === 'parked' ? await store.listParks({ runId: row.id, status: 'open' }) : [];
  return resultOf(row.id, row, parks);
}

function resultOf(
  runId: string,
  run: Pick<RunResult, 'status' | 'output' | 'error' | 'labels' | 'measures'>,
  parks: ParkRow[],
): RunResult {
  return {
    runId,
    status: run.status,
    ...(run.output === undefined ? {} : { output: run.output }),
    ...(run.error === undefined ? {} : { error: run.error }),
    labels: run.labels,
    measures: run.measures,
    parks,
  };
}
