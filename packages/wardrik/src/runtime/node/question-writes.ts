import type { InputQuestion } from '@wardrik/core';
import { RunHeldElsewhereError } from '../../errors.js';
import type { Park } from '../../journal/records.js';
import type { ParkRow, Store } from '../../store/store.js';
import type { RunNode } from './run-node.js';

/** Journals a question for the work `work` waits for, in its run (claimed for the write, then rested again). */
export async function askForWork(node: RunNode, work: ParkRow, question: InputQuestion): Promise<Park> {
  const callId = work.call?.callId ?? '';
  for (let tries = 1; ; tries++) {
    try {
      return await node.withRun(work.runId, (driver) =>
        node.loader.guardDriver(driver, driver.askForWork(callId, question)),
      );
    } catch (thrown) {
      // Another node holds the run a moment (answering one of its parks): ask again shortly.
      if (!RunHeldElsewhereError.isInstance(thrown) || tries >= 50) throw thrown;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Withdraws a question asked for work whose asker stopped waiting, if this node can take its run. */
export async function withdrawQuestion(node: RunNode, park: Park, reason: string): Promise<void> {
  await node
    .withRun(park.runId, (driver) => node.loader.guardDriver(driver, driver.withdrawQuestion(park.id, reason)))
    .catch((thrown: unknown) => {
      if (!node.health.closed) throw thrown; // a node that closed meanwhile withdraws nothing
    });
}

/**
 * Withdraws the questions asked for work (`requestInputFor`) by a process that has stopped: an
 * earlier incarnation of this node, or one the store knows is not running (a SQLite file's other
 * processes). Nobody waits for their answers; the work asks again if it still needs input.
 */
export async function withdrawOrphanedQuestions(node: RunNode, store: Store): Promise<void> {
  const { node: name, incarnation } = node.ownership.terms;
  const open = await store.listParks({ status: 'open', kind: 'input' });
  for (const park of open) {
    const holder = park.holder;
    if (!holder || holder.incarnation === incarnation) continue;
    const stopped =
      holder.node === name ||
      (await store.leaseHolderState(holder.node, holder.incarnation).catch(() => 'unknown')) === 'stopped';
    if (!stopped) continue;
    await withdrawQuestion(
      node,
      park,
      'the node that asked for it restarted; the work asks again if it still needs it',
    ).catch(
      () => {}, // another node holds the run now: it goes on without this one
    );
  }
}
