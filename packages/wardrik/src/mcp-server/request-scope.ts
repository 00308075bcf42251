import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ElicitResultSchema,
  ErrorCode,
  type LoggingLevel,
  McpError,
  RELATED_TASK_META_KEY,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { can } from '../auth/permissions.js';
import type { Principal } from '../auth/types.js';
import type { RunEvent } from '../runtime/events.js';
import type { Wardrik } from '../runtime/wardrik.js';
import type { ParkRow, RunRow } from '../store/store.js';
import { type ElicitationModes, inputQuestion } from './input-question.js';
import type { Offer } from './offered-tools.js';
import { askAboutPark } from './park-elicitation.js';
import { ASKED_KINDS } from './park-question.js';
import { progressMessage } from './run-progress.js';
import type { SettleOptions } from './settle-run.js';

/** What every session of one `/mcp` endpoint shares. */
export interface McpContext {
  readonly wardrik: Wardrik;
  readonly offer: Offer;
  readonly elicitationTimeoutMs: number;
  readonly taskPollIntervalMs: number;
}

/** One MCP session's own state. */
export interface SessionState {
  readonly server: Server;
  /** The principal that opened the session (every request of it must come from the same). */
  readonly principal: Principal;
  /** Aborted when the session closes (DELETE, idle, the server stopping). */
  readonly closing: AbortSignal;
  /** The level `logging/setLevel` set; undefined: every level. */
  logLevel: LoggingLevel | undefined;
  /** Requests being handled now (a session busy with one is not closed for idleness). */
  active: number;
}

/** What a request needs to know of the run it sees through: its id, its agent and whom it acts for. */
export type RunIdentity = Pick<RunRow, 'id' | 'agent' | 'principal'>;

/** What a request handler is given. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** The principal a request comes from: the token it was sent with now, else the session's. */
export function principalOf(extra: Extra, session: SessionState): Principal {
  const principal = extra.authInfo?.extra?.['principal'] as Principal | undefined;
  return principal ?? session.principal;
}

/** Sends a log line to the client on the request's stream, unless `logging/setLevel` set a higher level. */
export function logTo(extra: Extra, session: SessionState): (level: LoggingLevel, message: string) => void {
  return (level, message) => {
    if (session.logLevel !== undefined && LEVELS.indexOf(level) < LEVELS.indexOf(session.logLevel)) return;
    extra
      .sendNotification({ method: 'notifications/message', params: { level, logger: 'wardrik', data: message } })
      .catch(() => {});
  };
}

/** Progress notifications for the request's events, when it asked for them (a `progressToken`). */
export function progressTo(extra: Extra): ((event: RunEvent) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  return (event) => {
    const message = progressMessage(event);
    if (message === undefined) return;
    progress += 1;
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
      .catch(() => {});
  };
}

/** Which elicitation modes the client declared (`elicitation: {}` means form only). */
export function elicitationModes(server: Server): ElicitationModes {
  const elicitation = server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
  if (elicitation === undefined) return { form: false, url: false };
  return {
    form: elicitation['form'] !== undefined || Object.keys(elicitation).length === 0,
    url: elicitation['url'] !== undefined,
  };
}

/** Whether the client said it answers form elicitations. */
export function elicits(server: Server): boolean {
  return elicitationModes(server).form;
}

/**
 * Which parks of `run` the client is asked about, when the principal may answer parks of the run
 * (as in the console: `park.answer`): those of a kind a person decides on the spot (approval,
 * tool, budget) when the client elicits forms; a call's question (`input`) and a sign-in
 * (`authorize`) when the client declared the mode they need (see `inputQuestion`).
 */
export function askableBy(server: Server, principal: Principal, run: RunIdentity): (park: ParkRow) => boolean {
  const modes = elicitationModes(server);
  const allowed =
    (modes.form || modes.url) &&
    can(principal, 'park.answer', { agent: run.agent, runPrincipal: run.principal }).allowed;
  return (park) =>
    allowed &&
    (park.kind === 'input' || park.kind === 'authorize'
      ? inputQuestion(park, modes) !== undefined
      : modes.form && ASKED_KINDS.includes(park.kind));
}

/**
 * How a request sees `run` through: asking the client about the parks it may answer (on the
 * request's own stream, so that it reaches the client waiting on it; tied to the task when the
 * request serves one), telling it of the others, and (when asked for) progress — and, to a client
 * that had set `logging/setLevel` to `debug` when the request came, each of the run's steps as a
 * `debug` log line.
 */
export function settleOptionsFor(
  context: McpContext,
  session: SessionState,
  extra: Extra,
  run: RunIdentity,
  taskId?: string,
): Omit<SettleOptions, 'afterSeq' | 'runId'> {
  const principal = principalOf(extra, session);
  const log = logTo(extra, session);
  const progress = progressTo(extra);
  const onEvent = (event: RunEvent): void => {
    progress?.(event);
    // The run's steps as debug log lines, to a client that asked for them (logging/setLevel debug).
    if (session.logLevel !== 'debug') return;
    const message = progressMessage(event);
    if (message !== undefined) log('debug', `run ${run.id}: ${message}`);
  };
  // Nobody to tell of the run's steps (no progress token, logging not at debug when the request
  // came): its events need not be followed.
  const wantsEvents = progress !== undefined || session.logLevel === 'debug';
  return {
    wardrik: context.wardrik,
    signal: extra.signal,
    ...(wantsEvents ? { onEvent } : {}),
    askable: askableBy(session.server, principal, run),
    ask: (park, signal) =>
      askAboutPark(
        {
          wardrik: context.wardrik,
          principal,
          log,
          modes: elicitationModes(session.server),
          completed: (elicitationId) => {
            extra
              .sendNotification({ method: 'notifications/elicitation/complete', params: { elicitationId } })
              .catch(() => {});
          },
          // Tied to the task in _meta by hand: the SDK's relatedTask option queues the request for its
          // own task store, which tasks that are runs don't use.
          elicit: (params, elicitSignal) =>
            extra.sendRequest(
              {
                method: 'elicitation/create',
                params:
                  taskId === undefined
                    ? params
                    : { ...params, _meta: { ...params._meta, [RELATED_TASK_META_KEY]: { taskId } } },
              },
              ElicitResultSchema,
              { signal: elicitSignal, timeout: context.elicitationTimeoutMs },
            ),
        },
        park,
        run.agent,
        signal,
      ),
    onWaiting: (park) =>
      log(
        'info',
        park.kind === 'external'
          ? `run ${run.id} waits for outside work: ${park.reason}`
          : park.kind === 'input'
            ? `run ${run.id}: a call asks a person (park ${park.id}: ${park.reason}); answer it in the console or with wardrik answer`
            : `run ${run.id} waits for a person (park ${park.id}, ${park.kind}: ${park.reason}); answer it in the console or with wardrik answer`,
      ),
  };
}

/** An MCP error for a request that may not be made (the principal's role or scope). */
export function forbidden(reason: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Forbidden: ${reason}`);
}
