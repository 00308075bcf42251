import type { Registry } from 'prom-client';
import type { Hooks } from '../runtime/hooks.js';
import { promClient } from './prom-client.js';

/** What {@link countTakeOvers} reads of the runtime: its hooks, and its store's own counts, if it keeps any. */
export interface TakeOverSource {
  readonly hooks: Hooks;
  /** The store: a store shared by many nodes counts the writes it refused (`stats().writesRefused`). */
  readonly store?: object;
  /** The runtime's agents: each gets its series at 0 from the start (a series appears before its first count). */
  agents?(): readonly { readonly name: string }[];
}

/** A store's count of writes refused because their lease was lost, if it keeps one. */
function writesRefused(store: object | undefined): number | undefined {
  const stats = (store as { stats?: () => { writesRefused?: unknown } } | undefined)?.stats;
  if (typeof stats !== 'function') return undefined;
  const refused = stats.call(store).writesRefused;
  return typeof refused === 'number' ? refused : undefined;
}

/**
 * Leases and take-overs, in `registry`:
 * - `wardrik_runs_recovered_total{agent}`: runs this node took up with no answer given for them —
 *   after a restart, or taken over from a node that died or lost its lease (a run driven again
 *   after a person's answer, here or on another node, is not one);
 * - `wardrik_runs_lost_total{agent}`: runs this node stopped driving because another node took them
 *   over (its lease was lost: the node was too slow to renew it, or cut off from the store);
 * - `wardrik_store_writes_refused_total`: writes the store refused because their lease was not the
 *   run's any more (fencing at work: 0 on a store one process holds).
 * Returns the function that stops counting.
 *
 * @example
 * ```ts
 * const stop = countTakeOvers(wardrik, registry)
 * ```
 */
export function countTakeOvers(runtime: TakeOverSource, registry: Registry): () => void {
  const { Counter } = promClient();
  const registers = [registry];
  const recovered = new Counter({
    name: 'wardrik_runs_recovered_total',
    help: 'Runs this node took up with no answer given for them: after a restart, or taken over from a node that died or lost its lease.',
    labelNames: ['agent'],
    registers,
  });
  const lost = new Counter({
    name: 'wardrik_runs_lost_total',
    help: 'Runs this node stopped driving because another node took them over (its lease was lost).',
    labelNames: ['agent'],
    registers,
  });
  for (const { name } of runtime.agents?.() ?? []) {
    recovered.inc({ agent: name }, 0);
    lost.inc({ agent: name }, 0);
  }
  let base = writesRefused(runtime.store) ?? 0;
  let counted = 0;
  new Counter({
    name: 'wardrik_store_writes_refused_total',
    help: "Writes the store refused because their lease was not the run's any more (another node holds it).",
    registers,
    collect() {
      const now = writesRefused(runtime.store);
      if (now === undefined) return;
      if (now < base) base = 0; // a store reopened: its count starts again
      const total = now - base;
      if (total > counted) this.inc(total - counted);
      counted = Math.max(counted, total);
    },
  });
  /** Runs answered here whose next drive is the answer's doing, not a recovery. */
  const answered = new Set<string>();
  const stops = [
    runtime.hooks.on('park-answered', ({ runId }) => {
      answered.add(runId);
    }),
    runtime.hooks.on('run-resumed', ({ runId, agent }) => {
      if (!answered.delete(runId)) recovered.inc({ agent });
    }),
    runtime.hooks.on('run-suspended', ({ runId, agent, reason }) => {
      answered.delete(runId);
      if (reason === 'lost') lost.inc({ agent });
    }),
    runtime.hooks.on('run-ended', ({ runId }) => {
      answered.delete(runId);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
