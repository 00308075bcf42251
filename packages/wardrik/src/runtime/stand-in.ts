import { type Arguments, getPrivate, type Tool } from '@wardrik/core';
import { WORKER_TOOL, type WorkerToolInfo } from '../workers/worker-hub.js';

/** Whether a worker tool is a stand-in for one no worker offered when it was looked for (its schema is unknown). */
export function isStandIn(tool: Tool<Arguments>): boolean {
  return getPrivate<WorkerToolInfo | undefined>(tool, WORKER_TOOL, undefined)?.standIn === true;
}

/** The name a stand-in's tool has where workers list it (what to tell the model none offers). */
export function standInName(tool: Tool<Arguments>): string {
  return getPrivate<WorkerToolInfo | undefined>(tool, WORKER_TOOL, undefined)?.workerName ?? tool.name;
}
