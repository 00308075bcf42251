import type * as PromClient from 'prom-client';
import { loadNow } from '../lazy-package.js';

/** prom-client, loaded when metrics are first enabled (not when `wardrik` is imported). */
export function promClient(): typeof PromClient {
  return loadNow<typeof PromClient>('prom-client', 'metrics (enableMetrics)');
}
