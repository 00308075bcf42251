import type { Progress } from '@wardrik/core';

/** A `notifications/progress` read: the token it is for and the report, or why it cannot be used. */
export type ReadProgress =
  | { readonly ok: true; readonly token: unknown; readonly progress: Progress }
  | { readonly ok: false; readonly token: unknown; readonly reason: string };

/**
 * Reads the params of MCP's `notifications/progress`: `{ progressToken, progress, total?, message? }`.
 * `progress` and `total` must be finite numbers, `message` a string.
 *
 * @example
 * ```ts
 * readProgress({ progressToken: 7, progress: 3, total: 10 }) // { ok: true, token: 7, progress: { progress: 3, total: 10 } }
 * ```
 */
export function readProgress(params: Record<string, unknown> | undefined): ReadProgress {
  const token = params?.progressToken;
  const { progress, total, message } = params ?? {};
  if (typeof progress !== 'number' || !Number.isFinite(progress)) {
    return { ok: false, token, reason: `progress must be a number, got ${JSON.stringify(progress) ?? 'nothing'}` };
  }
  if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) {
    return { ok: false, token, reason: `total must be a number, got ${JSON.stringify(total)}` };
  }
  if (message !== undefined && typeof message !== 'string') {
    return { ok: false, token, reason: `message must be a string, got ${JSON.stringify(message)}` };
  }
  return {
    ok: true,
    token,
    progress: {
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message }),
    },
  };
}
