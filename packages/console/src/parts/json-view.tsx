import { pretty } from './format';

/** A JSON value (or text) shown as text, never as HTML. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" data-what={label}>
      {pretty(value)}
    </pre>
  );
}
