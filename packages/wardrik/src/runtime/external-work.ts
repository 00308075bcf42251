import type { ExternalOutcome } from '@wardrik/core';
import { InvalidInputError, ParkAlreadyAnsweredError, ParkNotFoundError } from '../errors.js';
import type { Park, ParkDecision } from '../journal/records.js';
import type { ParkRow, Store } from '../store/store.js';

export type { ExternalOutcome };

/** What the external-work desk needs of the runtime. */
export interface ExternalWorkDeps {
  readonly store: Store;
  readonly now: () => number;
  /** Answers a park as the runtime does for a person (bound to its callHash). */
  answer(park: Park, decision: ParkDecision, by: string): Promise<void>;
  /** Called with what failed in the background (a deadline answered late, a store read). */
  readonly onError?: (error: unknown) => void;
  /** Told of the open `external` parks at each look over them (for waits whose result came while no one listened). */
  readonly onWaiting?: (parks: readonly ParkRow[]) => void;
}

/** How often open `external` parks are looked over for deadlines set by other nodes (ms). */
const RESCAN_MS = 30_000;
/** How many open `external` parks a look over them reads at a time (see `scan`). */
const SCAN_PAGE = 500;
/** How often a result looks again for the park it names while none is open yet (ms). */
const POLL_MS = 50;

interface EarlyResult {
  readonly outcome: ExternalOutcome;
  readonly by: string;
  /** Set once a park took it. */
  taken?: { readonly parkId: string; readonly runId: string };
}

/**
 * The results of work long-running tools started (`started` from @wardrik/core), and the
 * deadlines of the waits: a result answers the run's `external` park; a wait past its deadline is
 * answered as failed. A result can come before its park is journaled (the work finished at once):
 * it waits here, and the park takes it as soon as it is journaled.
 */
export class ExternalWorkDesk {
  readonly #deps: ExternalWorkDeps;
  readonly #early = new Map<string, EarlyResult>();
  /** Known deadlines by park id. */
  readonly #deadlines = new Map<string, { readonly park: Park; readonly at: number }>();
  #timer: NodeJS.Timeout | undefined;
  /** The deadline the timer is set for (infinity: none). */
  #timerAt = Number.POSITIVE_INFINITY;
  #rescan: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(deps: ExternalWorkDeps) {
    this.#deps = deps;
  }

  /**
   * Looks over the open `external` parks (at start, then now and then: another node may have set
   * them), a page at a time, letting other work run between pages. Resolves to the handles runs
   * wait for.
   */
  async scan(): Promise<string[]> {
    const handles: string[] = [];
    let after: { readonly createdAt: number; readonly id: string } | undefined;
    while (!this.#closed) {
      const page = await this.#deps.store.listParks({
        status: 'open',
        kind: 'external',
        limit: SCAN_PAGE,
        ...(after ? { after } : {}),
      });
      for (const park of page) {
        if (park.kind !== 'external') continue;
        this.#watch(park);
        if (park.handle !== undefined) handles.push(park.handle);
      }
      this.#deps.onWaiting?.(page);
      const last = page.at(-1);
      if (page.length < SCAN_PAGE || last === undefined) break;
      after = { createdAt: last.createdAt, id: last.id };
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.#closed) return handles;
    this.#rescan ??= setInterval(() => {
      this.scan().catch((error) => this.#deps.onError?.(error));
    }, RESCAN_MS);
    this.#rescan.unref();
    return handles;
  }

  /** A driver journaled an `external` park: its deadline is watched, and a result that came first answers it. */
  parked(park: Park): void {
    this.#watch(park);
    const handle = park.handle;
    const early = handle === undefined ? undefined : this.#early.get(handle);
    if (!early || early.taken !== undefined) return;
    early.taken = { parkId: park.id, runId: park.runId };
    // After the driver's write returns: an answer arriving the instant a run parks is one the runtime takes.
    setImmediate(() => {
      this.#deps.answer(park, decisionOf(early.outcome), early.by).catch((error) => {
        if (!ParkAlreadyAnsweredError.isInstance(error)) this.#deps.onError?.(error);
      });
    });
  }

  /**
   * Delivers a result to the run waiting for `handle`, waiting up to `waitMs` for the park to be
   * journaled (the tool may still be returning, or its node journaling it). Throws
   * `ParkNotFoundError` if no run waits for it by then.
   */
  async complete(
    handle: string,
    outcome: ExternalOutcome,
    options: { by?: string; waitMs?: number } = {},
  ): Promise<{ parkId: string; runId: string }> {
    if (typeof handle !== 'string' || handle.length === 0 || handle.length > 256) {
      throw new InvalidInputError(`handle: expected a string of 1–256 characters, got ${JSON.stringify(handle)}`);
    }
    const checked = checkOutcome(outcome);
    const by = options.by ?? 'external';
    const early: EarlyResult = { outcome: checked, by };
    // Kept first, looked for second: a park journaled meanwhile either finds it here or is found below.
    this.#early.set(handle, early);
    const deadline = this.#deps.now() + (options.waitMs ?? 10_000);
    try {
      for (;;) {
        if (early.taken !== undefined) return early.taken;
        const park = await this.#openPark(handle);
        if (early.taken !== undefined) return early.taken;
        if (park) {
          early.taken = { parkId: park.id, runId: park.runId };
          try {
            await this.#deps.answer(park, decisionOf(checked), by);
          } catch (error) {
            if (!ParkAlreadyAnsweredError.isInstance(error)) throw error;
          }
          // Answered: its deadline is not watched any more (a long one would keep it in memory).
          this.#deadlines.delete(park.id);
          return { parkId: park.id, runId: park.runId };
        }
        if (this.#deps.now() >= deadline || this.#closed) {
          throw new ParkNotFoundError(`no run waits for the external work ${JSON.stringify(handle)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } finally {
      if (this.#early.get(handle) === early) this.#early.delete(handle);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#rescan) clearInterval(this.#rescan);
  }

  /** The open `external` park of the run waiting for `handle`, if any (see `complete`). */
  openPark(handle: string): Promise<ParkRow | undefined> {
    return this.#openPark(handle);
  }

  async #openPark(handle: string): Promise<ParkRow | undefined> {
    const open = await this.#deps.store.listParks({ status: 'open', kind: 'external', handle });
    // A store of one's own may not know the handle filter: it is applied here too.
    const found = open.filter((park) => park.handle === handle);
    if (found.length > 1) {
      throw new InvalidInputError(
        `handle: ${found.length} runs wait for external work ${JSON.stringify(handle)}; answer their parks (${found.map((park) => park.id).join(', ')}) one by one`,
      );
    }
    return found[0];
  }

  #watch(park: Park): void {
    if (park.deadline === undefined || this.#deadlines.has(park.id)) return;
    this.#deadlines.set(park.id, { park, at: park.deadline });
    // Only a deadline sooner than the one the timer waits for moves it (no look over all of them).
    if (park.deadline < this.#timerAt) this.#schedule(park.deadline);
  }

  /** Sets the timer for `next`, by default the soonest deadline known. */
  #schedule(next = this.#soonest()): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    if (this.#closed || next === Number.POSITIVE_INFINITY) return;
    this.#timerAt = next;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.min(next - this.#deps.now(), 2 ** 31 - 1)));
    this.#timer.unref();
  }

  #soonest(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const { at } of this.#deadlines.values()) next = Math.min(next, at);
    return next;
  }

  #expire(): void {
    const now = this.#deps.now();
    for (const [parkId, { park, at }] of this.#deadlines) {
      if (at > now) continue;
      this.#deadlines.delete(parkId);
      const reason = `no result came within its deadline (${new Date(at).toISOString()})`;
      this.#deps.answer(park, { type: 'fail', reason }, 'wardrik (deadline)').catch((error) => {
        if (!ParkAlreadyAnsweredError.isInstance(error) && !ParkNotFoundError.isInstance(error)) {
          this.#deps.onError?.(error);
        }
      });
    }
    this.#schedule();
  }
}

function decisionOf(outcome: ExternalOutcome): ParkDecision {
  const carried = {
    ...(outcome.labels?.length ? { labels: outcome.labels } : {}),
    ...(outcome.measures ? { measures: outcome.measures } : {}),
  };
  return 'error' in outcome
    ? { type: 'fail', reason: outcome.error, ...carried }
    : { type: 'answer', value: outcome.value, ...carried };
}

function checkOutcome(outcome: unknown): ExternalOutcome {
  if (typeof outcome !== 'object' || outcome === null) {
    throw new InvalidInputError('outcome: expected { value } or { error: reason }');
  }
  const carried = checkCarried(outcome as ExternalOutcome);
  if ('error' in outcome) {
    const reason = (outcome as { error: unknown }).error;
    if (typeof reason !== 'string' || reason === '') throw new InvalidInputError('outcome.error: expected a reason');
    return { error: reason, ...carried };
  }
  if (!('value' in outcome)) throw new InvalidInputError('outcome: expected { value } or { error: reason }');
  return { value: (outcome as { value: unknown }).value, ...carried };
}

/** An outcome's labels (non-empty strings) and measures (finite numbers by unit), checked. */
function checkCarried(outcome: ExternalOutcome): Pick<ExternalOutcome, 'labels' | 'measures'> {
  const { labels, measures } = outcome;
  if (
    labels !== undefined &&
    (!Array.isArray(labels) || labels.some((label) => typeof label !== 'string' || label === ''))
  ) {
    throw new InvalidInputError('outcome.labels: expected an array of non-empty strings such as ["outside"]');
  }
  if (measures !== undefined) {
    if (typeof measures !== 'object' || measures === null || Array.isArray(measures)) {
      throw new InvalidInputError('outcome.measures: expected an object of amounts by unit such as { usd: 0.02 }');
    }
    for (const [unit, amount] of Object.entries(measures)) {
      if (typeof amount !== 'number' || !Number.isFinite(amount)) {
        throw new InvalidInputError(
          `outcome.measures.${unit}: expected a finite number, got ${JSON.stringify(amount)}`,
        );
      }
    }
  }
  return { ...(labels?.length ? { labels: [...labels] } : {}), ...(measures ? { measures: { ...measures } } : {}) };
}
