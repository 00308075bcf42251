import { revealInvisible } from '@wardrik/core';
import type { RunEvent } from '../runtime/events.js';

/**
 * What a run event says to someone waiting on the run, as an MCP progress notification's
 * `message` — or undefined for events not worth one (streamed text, the start).
 *
 * @example
 * ```ts
 * progressMessage(event) // 'step 2: calling refund'
 * ```
 */
export function progressMessage(event: RunEvent): string | undefined {
  if (event.type === 'call-progress') {
    const total = event.total === undefined ? '' : `/${event.total}`;
    return `${revealInvisible(event.name)}: ${event.progress}${total}${event.message ? ` ${revealInvisible(event.message)}` : ''}`;
  }
  if (event.type === 'model-retry') return `step ${event.step}: the model call failed (${event.error}); trying again`;
  if (event.type === 'text-delta') return undefined;
  const { record } = event;
  switch (record.type) {
    case 'model-step': {
      const { step, toolCalls } = record;
      return toolCalls.length
        ? `step ${step}: the model calls ${toolCalls.map((call) => revealInvisible(call.name)).join(', ')}`
        : `step ${step}: the model answered`;
    }
    case 'call-started':
      return `calling ${revealInvisible(record.name)}${record.attempt > 1 ? ` (attempt ${record.attempt})` : ''}`;
    case 'call-answered':
      return `call ${record.callId} ${record.answer.type === 'error' ? 'failed' : 'answered'}`;
    case 'run-parked':
      return `waiting (${record.park.kind}): ${revealInvisible(record.park.reason)}`;
    case 'park-answered':
      return `park ${record.parkId} answered by ${record.by}: ${record.decision.type}`;
    case 'agent-transferred':
      return `handed to agent ${record.to}`;
    case 'run-ended':
      return `run ${record.status}`;
    default:
      return undefined;
  }
}
