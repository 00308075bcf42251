import type { RunStatus } from '../types';

const MARKS: Readonly<Record<RunStatus, string>> = {
  running: '▶',
  parked: '⏸',
  completed: '✓',
  failed: '✗',
  cancelled: '■',
};

/** A run's status: an icon and its word (never colour alone). */
export function Status({ status }: { status: RunStatus }) {
  return (
    <span class={`status status-${status}`}>
      <span aria-hidden="true">{MARKS[status]} </span>
      {status}
    </span>
  );
}
