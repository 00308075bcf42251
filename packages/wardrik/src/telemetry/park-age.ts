import type { Registry } from 'prom-client';
import { PARK_KINDS, type ParkKind } from '../journal/records.js';
import { promClient } from './prom-client.js';

/** What {@link registerOldestParks} reads: the open parks, oldest first. */
export interface OpenParkSource {
  listParks?(filter: {
    readonly status: 'open';
    readonly kind: ParkKind;
    readonly order: 'oldest';
    readonly limit: number;
  }): Promise<readonly { readonly createdAt: number }[]>;
}

/**
 * `wardrik_park_oldest_open_seconds{kind}`: how long the oldest open park of each kind has waited
 * for its answer, read from the store when scraped (the same on every node; a kind with no open
 * park has no sample). A store that can't say (closed, unreachable) leaves it out of that scrape.
 *
 * @example
 * ```ts
 * registerOldestParks(wardrik, registry, () => stopped)
 * ```
 */
export function registerOldestParks(source: OpenParkSource, registry: Registry, stopped: () => boolean): void {
  const { Gauge } = promClient();
  new Gauge({
    name: 'wardrik_park_oldest_open_seconds',
    help: 'How long the oldest open park of each kind has waited for its answer (read from the store when scraped).',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      this.reset();
      const list = source.listParks;
      if (!list || stopped()) return;
      const now = Date.now();
      const oldest = await Promise.all(
        PARK_KINDS.map((kind) =>
          list
            .call(source, { status: 'open', kind, order: 'oldest', limit: 1 })
            .then((parks) => parks[0]?.createdAt)
            .catch(() => undefined),
        ),
      );
      PARK_KINDS.forEach((kind, index) => {
        const createdAt = oldest[index];
        if (createdAt !== undefined) this.set({ kind }, Math.max(0, (now - createdAt) / 1000));
      });
    },
  });
}
