import { describeError } from '../api';

/** An error said plainly, announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      <span aria-hidden="true">✗ </span>
      {describeError(error)}
    </p>
  );
}
