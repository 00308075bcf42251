import { type Arguments, getPrivate, type Label, OUTSIDE, type Tool } from '@wardrik/core';
import { WORKER_TOOL } from '../workers/worker-hub.js';

/**
 * Why a call must wait for a person's approval before it runs, or undefined. The defaults of
 * DESIGN §1, in order of precedence:
 * 1. a worker tool is gated unless every worker offering it marks it read-only;
 * 2. a tool that is not read-only is gated once the run carries `outside`;
 * 3. a destructive tool is always gated.
 * (Per-agent policies that tighten or loosen these arrive with the gates issue.)
 */
export function gateReason(tool: Tool<Arguments>, runLabels: readonly Label[]): string | undefined {
  const readOnly = tool.annotations.readOnly === true;
  if (getPrivate(tool, WORKER_TOOL, undefined) !== undefined) {
    return readOnly
      ? undefined
      : `${tool.name} is offered by workers and not every worker offering it marks it read-only`;
  }
  if (!readOnly && runLabels.includes(OUTSIDE)) {
    return `${tool.name} is not read-only and the run has read text from outside (labelled ${OUTSIDE})`;
  }
  if (tool.annotations.destructive === true) return `${tool.name} is destructive`;
  return undefined;
}
