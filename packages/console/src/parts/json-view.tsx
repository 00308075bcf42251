import { pretty } from './format';
import { Shown } from './shown';

/** A JSON value (or text) shown as text, never as HTML; invisible characters written out (⟨U+202E⟩). */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" data-what={label}>
      <Shown text={pretty(value)} />
    </pre>
  );
}
