import { createHash } from 'node:crypto';
import type { ParkedCall, ParkKind } from '../../journal/records.js';

/**
 * The hash an answer must name: it covers the park's id and kind and the exact call it holds
 * (tool, arguments, idempotency key), so an answer can't be replayed onto another call.
 */
export function parkHash(parkId: string, kind: ParkKind, call: ParkedCall | undefined): string {
  const canonical = JSON.stringify([
    parkId,
    kind,
    call ? [call.callId, call.name, canonicalize(call.arguments), call.idempotencyKey] : null,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 32);
}

/** A copy of JSON data with object keys sorted, so equal data hashes equally. */
function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalize);
  if (typeof value === 'object' && value !== null) {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = canonicalize((value as Record<string, unknown>)[key]);
    return sorted;
  }
  return value;
}
