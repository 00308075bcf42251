import { type ContextOptions, createContext } from '@wardrik/core';

/** The identity of a call, as a test gives it to `call()`. */
export function contextOptions(overrides: Partial<ContextOptions> = {}): ContextOptions {
  return {
    runId: 'run-1',
    agent: 'support',
    principal: 'user-1',
    callId: 'call-1',
    idempotencyKey: 'run-1:call-1',
    ...overrides,
  };
}

/** A fresh call context. */
export function context(overrides: Partial<ContextOptions> = {}) {
  return createContext(contextOptions(overrides));
}

/** The message of what `fn` throws (fails the test if it does not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (caught) {
    if (caught instanceof Error) return caught;
    throw new Error(`threw a non-Error: ${String(caught)}`);
  }
  throw new Error('expected a throw, but nothing was thrown');
}
