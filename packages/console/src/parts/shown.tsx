import { hasInvisible, splitInvisible } from '@wardrik/core/invisible';

/**
 * Text shown as text, with every invisible character (bidi controls, zero-width and format
 * characters, controls, tags…) written out and set apart: `R1⟨U+202E⟩abc123`, never `R1,"321cba`.
 * Use it for anything an agent, a tool or a person wrote.
 */
export function Shown({ text }: { text: string | undefined }) {
  if (text === undefined) return null;
  const parts = splitInvisible(text);
  if (parts.every((part) => typeof part === 'string')) return <>{text}</>;
  return (
    <>
      {parts.map((part, index) =>
        typeof part === 'string' ? (
          part
        ) : (
          <mark key={index} class="invisible" title="an invisible character, shown by its code point">
            {part.shown}
          </mark>
        ),
      )}
    </>
  );
}

/**
 * A warning when `value` (text, or any string or key in it) holds invisible characters: what is
 * shown may read differently from what it is.
 */
export function InvisibleFlag({ value }: { value: unknown }) {
  if (!hasInvisible(value)) return null;
  return (
    <p class="invisible-flag" role="note">
      <span aria-hidden="true">⚠ </span>
      <strong>This holds invisible characters</strong>, shown here as ⟨U+…⟩: they can make text read differently from
      what it is (reversed, split, hidden). Read it with care.
    </p>
  );
}
