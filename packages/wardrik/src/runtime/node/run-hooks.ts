import type { EndStatus } from '../../journal/records.js';
import type { RunState } from '../../journal/state.js';
import type { Hooks } from '../hooks.js';

/** Tells hooks a run is driven: a new one (`fresh`), or one driven again. */
export function tellDriven(hooks: Hooks, state: RunState, { fresh }: { readonly fresh: boolean }): void {
  if (!hooks.has(fresh ? 'run-started' : 'run-resumed')) return;
  const base = {
    runId: state.runId,
    agent: state.activeAgent,
    principal: state.principal,
    ...(state.trace ? { trace: state.trace } : {}),
  };
  if (fresh) {
    hooks.emit('run-started', {
      ...base,
      ...(state.parent ? { parent: state.parent } : {}),
      ...(state.sessionId === undefined ? {} : { session: state.sessionId }),
    });
  } else hooks.emit('run-resumed', { ...base, step: state.steps });
}

/** Tells hooks this node stopped driving a run that has not ended. */
export function tellSuspended(hooks: Hooks, state: RunState, reason: 'parked' | 'stopped' | 'lost'): void {
  if (!hooks.has('run-suspended')) return;
  hooks.emit('run-suspended', {
    runId: state.runId,
    agent: state.activeAgent,
    principal: state.principal,
    ...(state.trace ? { trace: state.trace } : {}),
    reason,
  });
}

/** Tells hooks a run ended. */
export function tellEnded(hooks: Hooks, state: RunState): void {
  if (!hooks.has('run-ended')) return;
  hooks.emit('run-ended', {
    runId: state.runId,
    agent: state.activeAgent,
    principal: state.principal,
    ...(state.trace ? { trace: state.trace } : {}),
    status: state.status as EndStatus,
    durationMs: Math.max(0, state.updatedAt - state.createdAt),
    measures: state.measures,
    labels: state.labels,
    ...(state.error === undefined ? {} : { error: state.error }),
  });
}
