import type { SerializedWrite } from './columns.js';
import type { CommitStats } from './run-store.js';

/** Tells `listeners` of a commit of `writes` that took `durationMs` (a listener that throws is skipped). */
export function tellCommit(
  listeners: ReadonlySet<(commit: CommitStats) => void>,
  durationMs: number,
  writes: readonly SerializedWrite[],
): void {
  let records = 0;
  let bytes = 0;
  for (const write of writes) {
    records += write.records.length;
    for (const record of write.records) bytes += record.record.length;
  }
  const commit: CommitStats = { durationMs, writes: writes.length, records, bytes };
  for (const listener of listeners) {
    try {
      listener(commit);
    } catch {
      // A listener's failure is its own: the commit stands.
    }
  }
}
