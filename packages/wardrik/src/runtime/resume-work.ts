import type { CompleteExternal, RequestInputFor, Toolset } from '@wardrik/core';
import type { WorkerHub } from '../workers/worker-hub.js';

/** What following work again after a restart needs. */
export interface ResumeWorkDeps {
  /** The handles (`NAME:…`, `workers/…`) of the work runs still wait for. */
  readonly handles: readonly string[];
  readonly toolsets: Iterable<Toolset>;
  readonly workers: WorkerHub;
  readonly completeExternal: CompleteExternal;
  readonly requestInputFor: RequestInputFor;
}

/**
 * Hands toolsets that follow their own work (`Toolset.resume`) the handles runs still wait for,
 * and the workers the handles of their tools' MCP tasks (followed again as their principal's
 * workers connect).
 */
export async function resumeWork(deps: ResumeWorkDeps): Promise<void> {
  const { handles, completeExternal, requestInputFor } = deps;
  for (const toolset of deps.toolsets) {
    if (!toolset.resume) continue;
    const mine = handles.filter((handle) => handle.startsWith(`${toolset.name}:`));
    if (mine.length > 0) await toolset.resume({ handles: mine, completeExternal, requestInputFor });
  }
  const workerTasks = handles.filter((handle) => handle.startsWith('workers/'));
  if (workerTasks.length > 0) deps.workers.resume({ handles: workerTasks, completeExternal, requestInputFor });
}
