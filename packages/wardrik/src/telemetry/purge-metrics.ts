import type { Registry } from 'prom-client';
import type { Purged, PurgedKind } from '../runtime/retention-sweep.js';
import { promClient } from './prom-client.js';

/** What retention deletes, by kind: each has a series from the first scrape on (at 0). */
const KINDS: readonly PurgedKind[] = ['runs', 'journal_records', 'sessions', 'memories', 'artifact_versions'];

/** A runtime whose retention says what it purged (`Wardrik.retention`). */
interface PurgeSource {
  readonly retention: { onPurged(listener: (purged: Purged) => void): () => void };
}

function isPurgeSource(runtime: object): runtime is PurgeSource {
  const retention = (runtime as { retention?: { onPurged?: unknown } }).retention;
  return typeof retention?.onPurged === 'function';
}

/**
 * Counts what retention deleted through this node — the background sweep and `wardrik runs purge`
 * — as `wardrik_purged_total{kind}`, if the runtime has retention. Returns the function that stops
 * counting.
 *
 * @example
 * ```ts
 * const stop = countPurges(wardrik, registry) // wardrik_purged_total{kind="runs"} 1200
 * ```
 */
export function countPurges(runtime: object, registry: Registry): () => void {
  if (!isPurgeSource(runtime)) return () => {};
  const { Counter } = promClient();
  const purged = new Counter({
    name: 'wardrik_purged_total',
    help: 'What retention deleted through this node (the background sweep and wardrik runs purge), by kind: runs, journal_records, sessions, memories, artifact_versions.',
    labelNames: ['kind'],
    registers: [registry],
  });
  for (const kind of KINDS) purged.inc({ kind }, 0);
  return runtime.retention.onPurged(({ kind, count }) => purged.inc({ kind }, count));
}
