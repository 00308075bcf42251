import { constants } from 'node:os';
import { metrics, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Wardrik } from '../../runtime/wardrik.js';
import type { NodeLifecycle } from '../../server/node-lifecycle.js';
import { EXIT } from '../cli-error.js';

/** How long `serve` waits for the app's telemetry providers to export what they hold as it stops. */
const TELEMETRY_FLUSH_MS = 5_000;

/** What stopping `wardrik serve` works on. */
export interface ServeStop {
  readonly wardrik: Wardrik;
  readonly logger: Logger;
  readonly lifecycle: NodeLifecycle;
  /** How long runs under way get to reach their next journal record (ms). */
  readonly graceMs: number;
  /** Closes the servers (the API's, the metrics'): their ports close. */
  readonly closeServers: () => Promise<void>;
}

/**
 * Serves until SIGTERM or SIGINT, then stops gracefully and resolves with exit code 0:
 * 1. `/v1/ready` answers 503 at once, and new runs and answers get 503 (`node_stopping`);
 * 2. each run under way reaches its next journal record within the grace period and its lease is
 *    given back, so that another node sharing the store takes it over at once (`Wardrik.drain`);
 * 3. event streams end with a last `node-stopping` event; the ports close; the runtime closes
 *    (toolsets' MCP servers stop, the store flushes);
 * 4. the app's tracer and meter providers export what they hold (`forceFlush`, `shutdown`).
 *
 * A second signal exits at once (128 + the signal's number): what is on disk decides how the runs
 * go on, as after a crash. If the store fails, the node stops at once and resolves with 1
 * (crash-only: a supervisor restarts it and recovery resumes the runs).
 */
export function serveUntilStopped(stop: ServeStop): Promise<number> {
  const { wardrik, logger, lifecycle } = stop;
  return new Promise((resolve) => {
    let stopping = false;
    let failed = false;
    const finish = (steps: Promise<void>, code: number) => {
      steps.then(
        () => resolve(failed ? EXIT.failed : code),
        (thrown: unknown) => {
          logger.error({ err: thrown }, 'closing failed');
          resolve(EXIT.failed);
        },
      );
    };
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, 'a second signal: exiting at once (what is on disk decides how the runs go on)');
        process.exit(128 + (constants.signals[signal] ?? constants.signals.SIGTERM));
      }
      stopping = true;
      finish(gracefulStop(stop, signal), EXIT.ok);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    wardrik.onFailure((error) => {
      logger.fatal(
        { err: error },
        'the store failed, so this server stops taking work; restart it (a supervisor does this) to recover the runs from what is on disk',
      );
      failed = true; // also when it failed while stopping: exit 1, for a supervisor to restart it
      if (stopping) return;
      stopping = true;
      lifecycle.stopping();
      finish(
        (async () => {
          await stop.closeServers();
          await wardrik.close().catch(() => {});
          await flushTelemetry(logger);
        })(),
        EXIT.failed,
      );
    });
  });
}

async function gracefulStop(stop: ServeStop, signal: NodeJS.Signals): Promise<void> {
  const { wardrik, logger, lifecycle, graceMs } = stop;
  lifecycle.stopping();
  logger.info(
    { signal, graceMs, runs: wardrik.activeRuns },
    'Stopping: not ready, taking no new runs or answers; the runs under way get the grace period to reach their next journal record (a second signal exits at once)',
  );
  const report = await wardrik.drain({ graceMs });
  logger.info(
    { settled: report.settled, cutShort: report.cutShort },
    report.cutShort > 0
      ? 'runs handed over; some were still under way at the end of the grace period (the journal decides how they go on)'
      : 'runs handed over',
  );
  const streams = await lifecycle.closeStreams();
  if (streams > 0) logger.info({ streams }, 'event streams ended with a node-stopping event');
  logger.info('Stopping: closing the server and the runtime');
  await stop.closeServers();
  await wardrik.close().catch((thrown: unknown) => logger.error({ err: thrown }, 'closing the runtime failed'));
  await flushTelemetry(logger);
  logger.info('stopped');
}

/** The parts of an OpenTelemetry SDK provider `flushTelemetry` calls, when it has them. */
interface FlushableProvider {
  forceFlush?: () => Promise<void>;
  shutdown?: () => Promise<void>;
}

/**
 * Makes the app's registered tracer and meter providers (OpenTelemetry's globals) export what they
 * hold, then shuts them down: a run that ended just before the stop has its spans exported. A
 * provider that does not answer within 5 s is left (logged).
 *
 * @example
 * ```ts
 * await flushTelemetry(logger) // after wardrik.close(), before the process exits
 * ```
 */
export async function flushTelemetry(logger: Logger): Promise<void> {
  const tracer = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const providers = [tracer.getDelegate?.() ?? tracer, metrics.getMeterProvider()] as FlushableProvider[];
  for (const provider of providers) {
    if (typeof provider.forceFlush !== 'function' && typeof provider.shutdown !== 'function') continue;
    const flushed = (async () => {
      await provider.forceFlush?.();
      await provider.shutdown?.();
    })();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), TELEMETRY_FLUSH_MS);
    });
    const outcome = await Promise.race([flushed.then(() => 'done' as const), late]).catch((thrown: unknown) => {
      logger.warn({ err: thrown }, 'exporting telemetry failed as the server stopped');
      return 'failed' as const;
    });
    clearTimeout(timer);
    if (outcome === 'late') logger.warn(`exporting telemetry took over ${TELEMETRY_FLUSH_MS} ms; left as it stopped`);
  }
}
