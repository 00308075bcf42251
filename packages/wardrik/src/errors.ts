import { WardrikError } from '@wardrik/core';

function family<Code extends string>(code: Code) {
  return class extends WardrikError {
    static readonly code = code;
    constructor(message: string, options?: ErrorOptions) {
      super(code, message, options);
    }
    static override isInstance(value: unknown): value is WardrikError & { code: Code } {
      return WardrikError.isInstance(value) && value.code === code;
    }
  };
}

/** No agent has that name. */
export class AgentNotFoundError extends family('agent_not_found') {}
/** No run has that id. */
export class RunNotFoundError extends family('run_not_found') {}
/** No session has that id (or it belongs to another principal, who alone may see it). */
export class SessionNotFoundError extends family('session_not_found') {}
/** The session's previous run is still going (running or parked): runs of a session take turns. */
export class SessionBusyError extends family('session_busy') {}
/** No park has that id. */
export class ParkNotFoundError extends family('park_not_found') {}
/** The park was answered (or closed) already: a second answer fails closed. */
export class ParkAlreadyAnsweredError extends family('park_already_answered') {}
/** The answer names a call other than the one the park holds now: it fails closed. */
export class StaleParkAnswerError extends family('stale_park_answer') {}
/** The answer is malformed or not allowed for this kind of park. */
export class InvalidParkAnswerError extends family('invalid_park_answer') {}
/** The run has ended; it can't be cancelled or resumed. */
export class RunEndedError extends family('run_ended') {}
/** An agent definition is malformed. */
export class AgentDefinitionError extends family('agent_definition') {}
/** Bad input to a runtime method (e.g. an empty message). */
export class InvalidInputError extends family('invalid_input') {}
/** No principal has that id. */
export class PrincipalNotFoundError extends family('principal_not_found') {}
/** No token has that id. */
export class TokenNotFoundError extends family('token_not_found') {}
/** The store failed or is misconfigured. */
export class StoreError extends family('store') {}
/**
 * A write refused because its lease is not the run's lease any more: another node took the run
 * over (this one was paused, partitioned, or its lease expired). The writer must stop driving the
 * run; nothing is wrong with the store.
 */
export class LeaseLostError extends family('lease_lost') {}
/** Another node drives the run right now (it holds the run's lease): what was asked must go through it. */
export class RunHeldElsewhereError extends family('run_held_elsewhere') {}
/**
 * A run whose journal this Wardrik can't load (a record of a newer format, a corrupt record). It is
 * left as it is on disk, marked with the reason (`RunRow.attention`); it can still be cancelled.
 */
export class RunNeedsAttentionError extends family('run_needs_attention') {}
/** No artifact (or no such version of it) by that name. */
export class ArtifactNotFoundError extends family('artifact_not_found') {}
/** An artifact over the size limit (`createWardrik({ artifacts: { maxBytes } })`). */
export class ArtifactTooLargeError extends family('artifact_too_large') {}

/** A model failure. `retryable: false` (a bad key, an unknown model) fails the run at once. */
export class ModelError extends family('model') {
  readonly retryable: boolean;
  constructor(message: string, options: { retryable: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable;
  }
}
