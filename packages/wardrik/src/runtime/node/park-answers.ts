import { addMeasures, mergeLabels } from '@wardrik/core';
import {
  InvalidParkAnswerError,
  ParkAlreadyAnsweredError,
  ParkNotFoundError,
  RunHeldElsewhereError,
  StaleParkAnswerError,
} from '../../errors.js';
import type { CallHolder, Park, ParkDecision } from '../../journal/records.js';
import type { Store } from '../../store/store.js';
import { checkEditedArguments, type EditCheckDeps } from '../calls/edited-arguments.js';
import { checkInputAnswer } from '../calls/input-parks.js';
import { checkDecision } from '../park-decision.js';
import type { RunDriver } from '../run/run-driver.js';
import type { AnswerOptions } from '../wardrik-options.js';
import type { Allowances } from './allowances.js';
import type { RunNode } from './run-node.js';

/** What answering parks needs. */
export interface ParkAnswersDeps {
  readonly store: Store;
  readonly node: RunNode;
  readonly allowances: Allowances;
  /** What checking a person's edited arguments needs (see `checkEditedArguments`). */
  readonly editCheck: EditCheckDeps;
  readonly now: () => number;
  /** A question asked for long-running work (`requestInputFor`) was answered: its asker hears the reply. */
  readonly questionAnswered: (parkId: string, decision: ParkDecision) => void;
}

/** How an answer is given: by a person (`carried: false`), or as the result of external work (`carried: true`). */
export interface AnswerSource {
  /** The decision delivers a result of external work, whose labels and cost it keeps (a person's answer can't set them). */
  readonly carried: boolean;
}

/**
 * Answers parks: checks the decision against the park's kind, the call it was shown (its hash),
 * the holder of a call in doubt, a question's schema and an edit's arguments, then journals it on
 * the run's driver here — or records it for the node that holds the run.
 */
export class ParkAnswers {
  readonly #deps: ParkAnswersDeps;

  constructor(deps: ParkAnswersDeps) {
    this.#deps = deps;
  }

  /** Answers park `parkId` with `decision`, bound to the call the person saw (`options.callHash`). */
  async answer(parkId: string, decision: ParkDecision, options: AnswerOptions, source: AnswerSource): Promise<void> {
    this.#deps.node.health.checkTakingWork();
    const park = await this.#deps.store.getPark(parkId);
    if (!park) throw new ParkNotFoundError(`no park ${JSON.stringify(parkId)}`);
    await this.answerRead(park, decision, options, source);
  }

  /**
   * Answers `park` as its caller read it already (a result of external work finding its wait):
   * a park's run, kind and call never change, and whether it is still open is checked where the
   * answer is journaled, so it is not read again.
   */
  async answerRead(park: Park, decision: ParkDecision, options: AnswerOptions, source: AnswerSource): Promise<void> {
    this.#deps.node.health.checkTakingWork();
    const checked = await this.#checked(park, decision, options, source);
    const by = options.by ?? 'local';
    const node = this.#deps.node;
    await node.held.locks.hold(park.runId, async () => {
      node.health.checkOpen();
      let driver: RunDriver;
      try {
        driver = await node.loader.bringUpOrMark(park.runId);
      } catch (thrown) {
        if (!RunHeldElsewhereError.isInstance(thrown)) throw thrown;
        await this.#recordForHolder(park, checked, { by, callHash: options.callHash });
        return;
      }
      // Settled however the answer goes: a driver loaded for it is driven on, or rested again.
      try {
        await this.#journal(driver, park, checked, { by, callHash: options.callHash });
      } finally {
        if (!driver.lease || node.ownership.holds(driver.lease)) node.held.afterLockedWrite(driver);
      }
    });
    // A person answered a wait on a child run in its stead: the child is no longer waited for.
    if (!source.carried) node.children.cancelChild(park.handle, `a person (${by}) answered its parent's wait instead`);
  }

  /** The decision checked for the park, before the run is touched (a refused one leaves the park open). */
  async #checked(
    park: Park,
    decision: ParkDecision,
    options: AnswerOptions,
    source: AnswerSource,
  ): Promise<ParkDecision> {
    let checked = source.carried
      ? withCarried(checkDecision(park.kind, decision), decision)
      : checkDecision(park.kind, decision);
    if (typeof options?.callHash !== 'string') {
      throw new StaleParkAnswerError('callHash: required; pass the park.callHash of the park you were shown');
    }
    if (checked.type === 'retry' && park.kind === 'in_doubt' && park.holder && !checked.previousHolderStopped) {
      await this.#checkHolderStopped(park, park.holder);
    }
    // Accepting a question: what the person filled in must fit its schema (its defaults filled in).
    if (park.kind === 'input') checked = checkInputAnswer(park, checked);
    // An edit the tool would refuse is refused now, naming the fields, and the park stays open.
    if (checked.type === 'edit' && park.call) {
      const node = this.#deps.node;
      const run = node.held.drivers.get(park.runId)?.state ?? (await node.loader.runState(park.runId));
      await checkEditedArguments(this.#deps.editCheck, run, park.call.name, checked.arguments);
    }
    return checked;
  }

  /** Another node drives the run: the answer is recorded now, and that node journals it. */
  async #recordForHolder(
    park: Park,
    checked: ParkDecision,
    { by, callHash }: { readonly by: string; readonly callHash: string },
  ): Promise<void> {
    const request = { parkId: park.id, decision: checked, by, at: this.#deps.now(), callHash };
    await this.#deps.node.health.guard(this.#deps.store.requestAnswer(request));
    if (checked.type === 'approve' && checked.remember === 'agent' && park.call) {
      await this.#deps.allowances.rememberFor(park, by);
    }
  }

  /** Journals the answer on the run's driver, if the park is still open and holds the call answered. */
  async #journal(
    driver: RunDriver,
    park: Park,
    checked: ParkDecision,
    { by, callHash }: { readonly by: string; readonly callHash: string },
  ): Promise<void> {
    const current = driver.state.parks.get(park.id);
    if (current?.status !== 'open') {
      throw new ParkAlreadyAnsweredError(
        `park ${park.id} is ${current?.status ?? 'unknown'}: it takes one answer only`,
      );
    }
    if (current.callHash !== callHash) {
      throw new StaleParkAnswerError(`park ${park.id} now holds another call than the one answered; look at it again`);
    }
    await this.#deps.node.loader.guardDriver(driver, driver.answer(park, checked, by));
    if (park.kind === 'input') this.#deps.questionAnswered(park.id, checked);
    if (checked.type === 'approve' && checked.remember === 'agent' && current.call) {
      await this.#deps.allowances.rememberFor(current, by);
    }
  }

  /**
   * Refuses a `retry` of a call another process started and may still finish (paused past its
   * lease, not stopped): running it again now could run it twice. Fine when that process can't
   * be running (see `RunStore.leaseHolderState`).
   */
  async #checkHolderStopped(park: Park, holder: CallHolder): Promise<void> {
    const health = this.#deps.node.health;
    const state = await health.guard(this.#deps.store.leaseHolderState(holder.node, holder.incarnation));
    if (state === 'stopped') return;
    const now =
      state === 'alive'
        ? 'it is running now (it holds live leases): it may still finish the call'
        : 'it holds no live lease now, yet it may be paused rather than stopped and finish the call when it wakes';
    throw new InvalidParkAnswerError(
      `decision: park ${park.id} holds a call node ${holder.node} (lease epoch ${holder.epoch}) started` +
        `${holder.startedAt === undefined ? '' : ` at ${new Date(holder.startedAt).toISOString()}`} before it lost the run; ${now}. ` +
        'Retrying could run the call twice. Check that it had no effect and that the node has stopped, then answer ' +
        "{ type: 'retry', previousHolderStopped: true } (CLI: wardrik answer PARK retry --previous-holder-stopped)",
    );
  }
}

/** A checked decision with the labels and cost a result of external work carries (checked), if it carries any. */
function withCarried(checked: ParkDecision, decision: ParkDecision): ParkDecision {
  if (
    (checked.type !== 'answer' && checked.type !== 'fail') ||
    (decision.type !== 'answer' && decision.type !== 'fail')
  ) {
    return checked;
  }
  return {
    ...checked,
    ...(decision.labels?.length ? { labels: mergeLabels(decision.labels) } : {}),
    ...(decision.measures && Object.keys(decision.measures).length
      ? { measures: addMeasures({}, decision.measures) }
      : {}),
  };
}
