import { isRunVisible, type VisibleRuns } from '../auth/permissions.js';
import { RunNotFoundError } from '../errors.js';
import { isJournaled, type RunEvent } from '../runtime/events.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { ParkRow, RunRow } from '../store/store.js';

/** What the inbox stream sends: an event name and its data. */
export interface InboxMessage {
  readonly event: 'park-opened' | 'park-answered' | 'park-closed' | 'run-ended';
  readonly data: unknown;
}

/** What happened to a run, as the feed hears of it: a journal record here, or a signal from another node. */
type Heard = { readonly type: 'event'; readonly event: RunEvent } | { readonly type: 'signal'; readonly runId: string };

/** At most this many parks and runs are remembered per stream (the oldest are forgotten first). */
const REMEMBERED = 10_000;

/** The journal records that change the inbox: parks opening, answered or closed, and runs ending. */
const INBOX_RECORDS: ReadonlySet<string> = new Set([
  'run-parked',
  'input-requested',
  'park-answered',
  'input-withdrawn',
  'run-ended',
]);

/**
 * The inbox's live events for one principal: parks opened, answered and closed, from the runs this
 * node drives (their journal records, as they happen) and, on a store shared by many nodes, from
 * the runs other nodes drive (a run that parks or ends signals every node; the feed then reads its
 * parks). Each park is sent opened once and answered once, whichever way it was heard of first.
 */
export class InboxFeed {
  readonly #wardrik: Wardrik;
  readonly #visible: VisibleRuns;
  readonly #itemOf: (park: ParkRow, run: RunRow) => unknown;
  readonly #heard: Heard[] = [];
  #wake: (() => void) | undefined;
  #closed = false;
  readonly #stops: (() => void)[] = [];
  /** Parks sent, by id: whether still open as last sent, and their run. */
  readonly #parks = new Map<string, { readonly runId: string; open: boolean }>();
  /** Runs whose end was sent. */
  readonly #ended = new Set<string>();
  /** Whose each run is (read once). */
  readonly #owners = new Map<string, { agent: string; principal: string }>();

  constructor(wardrik: Wardrik, visible: VisibleRuns, itemOf: (park: ParkRow, run: RunRow) => unknown) {
    this.#wardrik = wardrik;
    this.#visible = visible;
    this.#itemOf = itemOf;
    this.#stops.push(
      wardrik.subscribe('*', (event) => {
        if (INBOX_RECORDS.has(event.type)) {
          this.#hear({ type: 'event', event });
        }
      }),
      wardrik.onRunChangedElsewhere((runId) => this.#hear({ type: 'signal', runId })),
    );
  }

  /** The next messages, once there are any (empty once closed). */
  async next(): Promise<InboxMessage[]> {
    for (;;) {
      if (this.#closed) return [];
      const heard = this.#heard.shift();
      if (heard === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
        continue;
      }
      const messages =
        heard.type === 'event' ? await this.#fromEvent(heard.event) : await this.#fromSignal(heard.runId);
      if (messages.length > 0) return messages;
    }
  }

  /** Stops listening; a pending `next` resolves empty. */
  close(): void {
    this.#closed = true;
    for (const stop of this.#stops) stop();
    this.#wake?.();
  }

  #hear(heard: Heard): void {
    if (this.#closed) return;
    this.#heard.push(heard);
    this.#wake?.();
  }

  async #fromEvent(event: RunEvent): Promise<InboxMessage[]> {
    if (!isJournaled(event) || !(await this.#mayRead(event.runId))) return [];
    const record = event.record;
    if (record.type === 'run-parked' || record.type === 'input-requested') {
      const park = await this.#wardrik.getPark(record.park.id).catch(() => undefined);
      if (park === undefined || park.status !== 'open' || this.#parks.has(park.id)) return [];
      return [await this.#opened(park)];
    }
    if (record.type === 'park-answered') {
      const sent = this.#parks.get(record.parkId);
      if (sent !== undefined && !sent.open) return [];
      this.#remember(record.parkId, event.runId, false);
      const { parkId, decision, by, at } = record;
      return [{ event: 'park-answered', data: { parkId, runId: event.runId, decision, by, at } }];
    }
    if (record.type === 'input-withdrawn') return this.#parkClosed(record.parkId, event.runId, record.reason);
    if (record.type === 'run-ended') return this.#runEnded(event.runId, record.status);
    return [];
  }

  /** Another node's run parked or ended: what changed in its parks since they were last sent. */
  async #fromSignal(runId: string): Promise<InboxMessage[]> {
    if (this.#ended.has(runId) || !(await this.#mayRead(runId))) return [];
    const messages: InboxMessage[] = [];
    for (const park of await this.#wardrik.listParks({ runId })) {
      const sent = this.#parks.get(park.id);
      if (park.status === 'open' && sent === undefined) messages.push(await this.#opened(park));
      else if (park.status === 'closed' && sent?.open === true && park.kind === 'input') {
        messages.push(...this.#parkClosed(park.id, runId, 'withdrawn: the call that asked no longer waits'));
      } else if (park.status === 'answered' && (sent === undefined || sent.open)) {
        this.#remember(park.id, runId, false);
        const { id: parkId, decision, answeredBy: by, answeredAt: at } = park;
        messages.push({ event: 'park-answered', data: { parkId, runId, decision, by, at } });
      }
    }
    const row = await this.#wardrik.getRunSummary(runId).catch(unlessNotFound);
    if (row !== undefined && row.status !== 'running' && row.status !== 'parked') {
      messages.push(...this.#runEnded(runId, row.status));
    }
    return messages;
  }

  async #opened(park: ParkRow): Promise<InboxMessage> {
    this.#remember(park.id, park.runId, true);
    const run = await this.#wardrik.getRunSummary(park.runId);
    return { event: 'park-opened', data: this.#itemOf(park, run) };
  }

  /** A question a call asked is withdrawn while its run goes on (a run's end closes its parks by itself). */
  #parkClosed(parkId: string, runId: string, reason: string): InboxMessage[] {
    const sent = this.#parks.get(parkId);
    if (sent !== undefined && !sent.open) return [];
    this.#remember(parkId, runId, false);
    return [{ event: 'park-closed', data: { parkId, runId, reason } }];
  }

  #runEnded(runId: string, status: string): InboxMessage[] {
    if (this.#ended.has(runId)) return [];
    this.#ended.add(runId);
    if (this.#ended.size > REMEMBERED) this.#ended.delete(this.#ended.values().next().value as string);
    for (const [parkId, sent] of this.#parks) if (sent.runId === runId) this.#parks.delete(parkId);
    this.#owners.delete(runId);
    return [{ event: 'run-ended', data: { runId, status } }];
  }

  #remember(parkId: string, runId: string, open: boolean): void {
    this.#parks.set(parkId, { runId, open });
    if (this.#parks.size > REMEMBERED) this.#parks.delete(this.#parks.keys().next().value as string);
  }

  async #mayRead(runId: string): Promise<boolean> {
    let owner = this.#owners.get(runId);
    if (owner === undefined) {
      const row = await this.#wardrik.getRunSummary(runId).catch(() => undefined);
      if (row === undefined) return false;
      owner = { agent: row.agent, principal: row.principal };
      this.#owners.set(runId, owner);
      if (this.#owners.size > REMEMBERED) this.#owners.delete(this.#owners.keys().next().value as string);
    }
    return isRunVisible(this.#visible, owner);
  }
}

/** A run that is gone (purged) is no run; anything else that failed goes on failing. */
function unlessNotFound(thrown: unknown): undefined {
  if (RunNotFoundError.isInstance(thrown)) return undefined;
  throw thrown;
}
