import { type Style, styleFor } from './style.js';

/** Writes a line to stdout. */
export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Writes a line to stderr. */
export function printError(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Writes a value as JSON on stdout: what `--json` prints, and nothing else. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** The style of what goes to stdout: symbols and colour on a terminal only (see style.ts). */
export function stdoutStyle(): Style {
  return styleFor(process.stdout);
}

/** How to call the CLI in hints: `npx wardrik` when it was started through npm (npx, npm start), else `wardrik`. */
export function cliName(): string {
  return process.env['npm_command'] === undefined ? 'wardrik' : 'npx wardrik';
}

/**
 * A table for people: a header row and aligned columns, two spaces apart.
 *
 * @example
 * ```ts
 * print(table(['ID', 'STATUS'], [['run_1', 'completed']]))
 * ```
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `text` cut to `max` characters, on one line. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A time for people: local date and time to the second. */
export function when(ms: number): string {
  const date = new Date(ms);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
