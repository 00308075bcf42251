import { StoreError } from '../../errors.js';
import type { SerializedWrite } from '../columns.js';

/** Whether PostgreSQL can keep `text` as text: it cannot hold the character U+0000. */
function storable(text: string): boolean {
  return !text.includes('\u0000');
}

/**
 * Checks that a write's plain text columns (ids, names, kinds) have no U+0000, which PostgreSQL
 * text cannot hold: such a write would fail its whole batch, and with it the store. JSON columns
 * need no check (JSON escapes it). Throws `StoreError` naming the field.
 */
export function checkText(write: SerializedWrite): void {
  const fields: [string, string][] = [['runId', write.runId]];
  if (write.run) {
    fields.push(['agent', write.run.agent], ['principal', write.run.principal], ['status', write.run.status]);
  }
  for (const park of write.parks) fields.push(['park id', park.id], ['park kind', park.kind]);
  for (const parkId of write.closeParks) fields.push(['closeParks', parkId]);
  for (const parkId of write.recordedAnswers) fields.push(['recordedAnswers', parkId]);
  if (write.lease) fields.push(['lease node', write.lease.node]);
  for (const each of write.state) fields.push(['state scope', each.scope], ['state key', each.key]);
  for (const [name, value] of fields) {
    if (typeof value !== 'string' || !storable(value)) {
      throw new StoreError(`run ${JSON.stringify(write.runId)}: ${name} must be text without U+0000`);
    }
  }
}
