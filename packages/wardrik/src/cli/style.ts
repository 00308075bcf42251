/**
 * How the CLI decorates what it prints for people: symbols (→ ← ⏸ ▶ ↻ … ✓ ✗) and colour only on
 * a terminal; piped or redirected output is plain ASCII markers and no escape codes, so that logs
 * and `grep` see plain text. `NO_COLOR` (set and not empty, https://no-color.org) turns colour off
 * on a terminal too, and leaves the symbols.
 */
export interface Style {
  /** Unicode symbols (on a terminal) or their ASCII stand-ins. */
  readonly symbols: boolean;
  /** ANSI colours. */
  readonly colour: boolean;
}

/** Symbols without colour: what a printer uses when nobody says (e.g. in tests). */
export const SYMBOLS_ONLY: Style = Object.freeze({ symbols: true, colour: false });

/** Plain ASCII, no colour: piped output. */
export const PLAIN: Style = Object.freeze({ symbols: false, colour: false });

/**
 * The style for output written to `stream`: symbols and colour on a TTY, colour unless `NO_COLOR`
 * is set and not empty; plain otherwise.
 *
 * @example
 * ```ts
 * const style = styleFor(process.stdout) // { symbols: false, colour: false } when piped
 * ```
 */
export function styleFor(stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  if (stream.isTTY !== true) return PLAIN;
  const noColor = env['NO_COLOR'];
  return { symbols: true, colour: noColor === undefined || noColor === '' };
}

/** The markers the CLI puts before lines, each as a symbol and as plain ASCII ('' for none). */
const MARKS = {
  call: ['→', '->'],
  answer: ['←', '<-'],
  park: ['⏸', '||'],
  answered: ['▶', '>>'],
  retry: ['↻', '~'],
  progress: ['…', '..'],
  completed: ['✓', ''],
  failed: ['✗', ''],
  warning: ['⚠', '!!'],
} as const;

/** A marker's name. */
export type Mark = keyof typeof MARKS;

/**
 * A marker in this style, followed by a space (nothing at all when its plain form is none).
 *
 * @example
 * ```ts
 * `  ${mark(style, 'call')}refund({…})` // '  → refund({…})' on a terminal, '  -> refund({…})' piped
 * ```
 */
export function mark(style: Style, name: Mark): string {
  const [symbol, plain] = MARKS[name];
  const text = style.symbols ? symbol : plain;
  return text === '' ? '' : `${text} `;
}

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  magenta: [35, 39],
  cyan: [36, 39],
} as const;

/** A colour (or weight) the CLI uses. */
export type Colour = keyof typeof CODES;

/** `text` in `colour` when the style has colour; `text` unchanged otherwise. */
export function paint(style: Style, colour: Colour, text: string): string {
  if (!style.colour || text === '') return text;
  const [open, close] = CODES[colour];
  return `\x1b[${open}m${text}\x1b[${close}m`;
}
