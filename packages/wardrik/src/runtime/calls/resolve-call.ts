import { type Arguments, error, type Tool } from '@wardrik/core';
import type { CallState } from '../../journal/state.js';
import { NOT_DURABLE } from '../run/run-writer.js';
import type { CallScope, CallTarget } from './call-scope.js';

/** A call's phase needs nothing more: the call is answered, or the process is stopping. */
export const SETTLED = Symbol('settled');

/** Who runs a call: its tool, none (no source offers it: the tools the agent has run it), or `SETTLED`. */
export type Resolved = Tool<Arguments> | undefined | typeof SETTLED;

/**
 * "Who runs this call?", asked of the agent's tool sources. Synchronous when a source offers the
 * tool now (most calls: no await added). A tool that only stands in for one its source does not
 * offer yet (a worker tool, while no worker offers it) is waited for before the call is judged by
 * its annotations; a resumed call (its intent on disk) runs as it was, without waiting.
 */
export function resolveCall(run: CallScope, { call, resumed }: CallTarget): Resolved | Promise<Resolved> {
  const tool = run.tools.find(call.name);
  if (!tool || resumed || !run.tools.standsIn(tool)) return tool;
  return awaitOffered(run, call, tool);
}

async function awaitOffered(run: CallScope, call: CallState, standIn: Tool<Arguments>): Promise<Resolved> {
  const offered = await run.tools.awaitOffered(standIn, { name: call.name, signal: run.abort.signal });
  if (run.stopping()) return SETTLED;
  if (run.abort.aborted) {
    await run.writer.write([run.answered(call, error('the run was cancelled', { code: 'cancelled' }))], NOT_DURABLE);
    return SETTLED;
  }
  if ('unavailable' in offered) {
    const unavailable = error(offered.unavailable, { code: 'unavailable' });
    await run.writer.write([run.answered(call, unavailable)], NOT_DURABLE);
    return SETTLED;
  }
  return offered.tool;
}
