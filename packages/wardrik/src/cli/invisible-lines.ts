import { hasInvisible } from '@wardrik/core';
import type { JournalRecord } from '../journal/records.js';
import { mark, paint, type Style } from './style.js';

/**
 * The line that flags what was just printed as holding invisible characters (bidi controls,
 * zero-width and format characters, controls, tags), which the CLI writes out as `⟨U+202E⟩`
 * (see revealInvisible in @wardrik/core): `    ⚠ holds invisible characters, shown as ⟨U+…⟩: …`.
 */
export function invisibleWarning(style: Style, indent = '    '): string {
  return `${indent}${paint(
    style,
    'red',
    `${mark(style, 'warning')}holds invisible characters, shown as ⟨U+…⟩: it may not read as it is`,
  )}`;
}

/** The flag line, when `value` (text, or any string or key in it) holds invisible characters. */
export function invisibleLines(value: unknown, style: Style, indent?: string): string[] {
  return hasInvisible(value) ? [invisibleWarning(style, indent)] : [];
}

/**
 * The flag line for a journal record, when what the CLI prints of it holds invisible characters
 * (a model step is printed without its calls' arguments: their own lines flag them). Parks flag
 * themselves (describePark).
 */
export function recordInvisibleLines(record: JournalRecord, style: Style, indent?: string): string[] {
  if (record.type === 'run-parked') return [];
  const printed = record.type === 'model-step' ? [record.text, record.tools, record.unavailable] : record;
  return invisibleLines(printed, style, indent);
}
