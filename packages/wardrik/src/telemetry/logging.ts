import { createRequire } from 'node:module';
import type * as Pino from 'pino';
import type { DestinationStream, Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { loadNow } from '../lazy-package.js';
import type { HookEvents, HookName, Hooks, TraceCarrier } from '../runtime/hooks.js';
import { fromCarrier } from './trace-carrier.js';

/** Log levels, most severe first (`silent` logs nothing). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How {@link createLogger} writes. */
export interface LoggerOptions {
  /** Default `info`. */
  readonly level?: LogLevel;
  /** `json` (one JSON object a line) or `pretty` (for people). Default: pretty on a terminal, else JSON. */
  readonly format?: 'json' | 'pretty';
  /** Where lines go. Default: standard error (standard output carries commands' own output). */
  readonly destination?: DestinationStream | NodeJS.WritableStream;
  /** Secrets that must never be written (e.g. a metrics token): replaced by `[redacted]` wherever they appear. */
  readonly secrets?: readonly string[];
}

/** Fields that hold secrets, wherever they are: their values are written as `[redacted]`. */
const REDACTED = [
  'token',
  'authorization',
  'password',
  'secret',
  'cookie',
  '*.token',
  '*.authorization',
  '*.password',
  '*.secret',
  '*.cookie',
  'headers.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
];

/** Tokens Wardrik makes (`wdk_…`) and bearer credentials, wherever they appear in text. */
const TOKEN_TEXT = /\bwdk_[A-Za-z0-9_-]+|\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;

/**
 * A pino logger writing JSON lines (`level`, `time`, `msg`, and the fields of each line), or
 * pretty lines on a terminal. Never writes a secret: fields named `token`, `authorization`,
 * `password`, `secret` or `cookie` (at any depth of two), Wardrik tokens (`wdk_…`), `Bearer …`
 * credentials and the `secrets` given are written as `[redacted]`.
 *
 * @example
 * ```ts
 * const logger = createLogger({ level: 'debug' })
 * logger.info({ runId: 'run_1' }, 'run started') // {"level":"info","time":"…","runId":"run_1","msg":"run started"}
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const { pino, stdTimeFunctions } = loadNow<typeof Pino>('pino', 'logging (createLogger)');
  const secrets = (options.secrets ?? []).filter((secret) => secret.length >= 4);
  const scrub = (text: string): string => {
    let clean = text.replace(TOKEN_TEXT, (_found, scheme?: string) => (scheme ? `${scheme} [redacted]` : '[redacted]'));
    for (const secret of secrets) clean = clean.split(secret).join('[redacted]');
    return clean;
  };
  const toTerminal = options.format === 'pretty' || (options.format === undefined && process.stderr.isTTY === true);
  const destination =
    options.destination ??
    (toTerminal
      ? loadPretty()({
          destination: 2,
          sync: true,
          colorize: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
        })
      : pino.destination({ dest: 2, sync: true }));
  return pino(
    {
      name: 'wardrik',
      level: options.level ?? 'info',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: '[redacted]' },
      hooks: {
        // Text in messages and in the fields of a line: whatever wrote it, no token leaves.
        logMethod(args, method) {
          const [first, ...rest] = args as unknown[];
          const cleaned = [
            typeof first === 'string'
              ? scrub(first)
              : first !== null && typeof first === 'object' && !(first instanceof Error)
                ? scrubFields(first as Record<string, unknown>, scrub)
                : first,
            ...rest.map((each) => (typeof each === 'string' ? scrub(each) : each)),
          ];
          method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
      serializers: { err: (error: Error) => ({ type: error.name, message: scrub(error.message) }) },
    },
    destination as DestinationStream,
  );
}

/** pino-pretty, loaded only when a terminal reads the lines. */
function loadPretty(): typeof PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
}

function scrubFields(fields: Record<string, unknown>, scrub: (text: string) => string): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') continue;
    const clean = scrub(value);
    if (clean === value) continue;
    copy ??= { ...fields };
    copy[key] = clean;
  }
  return copy ?? fields;
}

/**
 * Logs what a runtime does, on its hooks: runs started, resumed, parked and ended, parks opened
 * and answered, workers connecting and leaving (`info`); failed model calls and attempts, calls
 * in doubt (`warn`); every model call, attempt and settled call (`debug`); store commits
 * (`trace`). Each line of a run has `runId`, `agent`, and when the run is traced `traceId` and
 * `spanId` (the span of the run's stretch driven here, else the run's first span).
 * Returns the function that stops logging.
 *
 * @example
 * ```ts
 * const stop = logRuntime(wardrik, createLogger({ level: 'info' }))
 * ```
 */
export function logRuntime(wardrik: { readonly hooks: Hooks }, logger: Logger): () => void {
  // Asked at every step (is a call worth a line?): kept, and asked again when the level changes.
  let debug = logger.isLevelEnabled('debug');
  const levelChanged = () => {
    debug = logger.isLevelEnabled('debug');
  };
  logger.on('level-change', levelChanged);
  // Each line's fields: a fresh object the listener adds to (made only for lines that are written).
  const run = (event: { runId: string; agent: string; trace?: TraceCarrier }): Record<string, unknown> => {
    const fields: Record<string, unknown> = { runId: event.runId, agent: event.agent };
    if (event.trace === undefined) return fields;
    const span = fromCarrier(wardrik.hooks.runSpanTrace(event.runId) ?? event.trace);
    if (span) {
      fields['traceId'] = span.traceId;
      fields['spanId'] = span.spanId;
    }
    return fields;
  };
  const listeners: { [K in HookName]?: (event: HookEvents[K]) => void } = {
    'run-started': (event) => {
      const line = run(event);
      line['principal'] = event.principal;
      if (event.parent) line['parentRunId'] = event.parent.runId;
      if (event.session !== undefined) line['session'] = event.session;
      logger.info(line, 'run started');
    },
    'run-start-failed': (event) => {
      const line = run(event);
      line['error'] = event.error;
      logger.warn(line, 'run did not start');
    },
    'run-resumed': (event) => {
      const line = run(event);
      line['step'] = event.step;
      logger.info(line, 'run resumed');
    },
    'run-suspended': (event) => {
      const line = run(event);
      line['reason'] = event.reason;
      logger.info(
        line,
        event.reason === 'parked'
          ? 'run parked'
          : event.reason === 'lost'
            ? 'run taken over by another node'
            : 'run stopped',
      );
    },
    'run-ended': (event) => {
      const { inputTokens, outputTokens, usd } = event.measures as Record<string, number | undefined>;
      const line = run(event);
      line['status'] = event.status;
      line['durationMs'] = Math.round(event.durationMs);
      if (inputTokens !== undefined) line['inputTokens'] = inputTokens;
      if (outputTokens !== undefined) line['outputTokens'] = outputTokens;
      if (usd !== undefined) line['usd'] = usd;
      if (event.labels.length) line['labels'] = event.labels;
      if (event.error !== undefined) line['error'] = event.error;
      if (event.status === 'failed') logger.warn(line, 'run failed');
      else logger.info(line, 'run ended');
    },
    'park-opened': (event) => {
      const line = run(event);
      line['parkId'] = event.parkId;
      line['kind'] = event.kind;
      line['reason'] = event.reason;
      if (event.tool !== undefined) line['tool'] = event.tool;
      if (event.rule !== undefined) line['rule'] = event.rule;
      logger.info(line, 'park opened');
    },
    'park-answered': (event) => {
      const line = run(event);
      line['parkId'] = event.parkId;
      line['kind'] = event.kind;
      line['decision'] = event.decision;
      line['by'] = event.by;
      line['waitedMs'] = Math.round(event.waitedMs);
      logger.info(line, 'park answered');
    },
    'model-call-ended': (event) => {
      // A call cut short by a cancel of its run did not fail.
      const failed = event.error !== undefined && event.error !== 'cancelled';
      if (!failed && !debug) return;
      const line = run(event);
      line['step'] = event.step;
      line['model'] = event.model;
      line['attempt'] = event.attempt;
      if (failed) {
        line['error'] = event.error;
        line['retrying'] = event.retrying ?? false;
        logger.warn(line, 'model call failed');
        return;
      }
      line['durationMs'] = Math.round(event.durationMs);
      if (event.error === 'cancelled') {
        logger.debug(line, 'model call cancelled');
        return;
      }
      if (event.usage) {
        line['inputTokens'] = event.usage.inputTokens;
        line['outputTokens'] = event.usage.outputTokens;
      }
      if (event.finishReason) line['finishReason'] = event.finishReason;
      logger.debug(line, 'model call');
    },
    'call-attempt-ended': (event) => {
      const failed = event.outcome === 'error' || event.outcome === 'timeout' || event.outcome === 'lost';
      if (!failed && !debug) return;
      const line = run(event);
      line['callId'] = event.callId;
      line['tool'] = event.tool;
      line['attempt'] = event.attempt;
      line['outcome'] = event.outcome;
      line['durationMs'] = Math.round(event.durationMs);
      if (event.error !== undefined) line['error'] = event.error;
      if (failed) logger.warn(line, 'call attempt failed');
      else logger.debug(line, 'call attempt');
    },
    'call-settled': (event) => {
      const level = event.outcome === 'in_doubt' ? 'warn' : event.outcome === 'denied' ? 'info' : 'debug';
      if (level === 'debug' && !debug) return;
      const line = run(event);
      line['callId'] = event.callId;
      line['tool'] = event.tool;
      line['outcome'] = event.outcome;
      if (event.rule) line['rule'] = event.rule;
      if (level === 'warn') logger.warn(line, 'call in doubt: it may have run; a person must say');
      else if (level === 'info') logger.info(line, 'call denied by policy');
      else logger.debug(line, 'call settled');
    },
    'store-committed': (event) => {
      if (logger.isLevelEnabled('trace')) logger.trace({ ...event }, 'store commit');
    },
    'worker-connected': (event) =>
      logger.info({ worker: event.worker, principal: event.principal }, 'worker connected'),
    'worker-disconnected': (event) =>
      logger.info({ worker: event.worker, principal: event.principal, reason: event.reason }, 'worker disconnected'),
  };
  if (!logger.isLevelEnabled('trace')) delete listeners['store-committed'];
  if (!logger.isLevelEnabled('info')) {
    for (const name of ['run-started', 'run-resumed', 'run-suspended', 'park-opened', 'park-answered'] as const) {
      delete listeners[name];
    }
  }
  const stops = (Object.keys(listeners) as HookName[]).map((name) =>
    wardrik.hooks.on(name, listeners[name] as (event: HookEvents[typeof name]) => void),
  );
  return () => {
    for (const stop of stops) stop();
    logger.off('level-change', levelChanged);
  };
}
