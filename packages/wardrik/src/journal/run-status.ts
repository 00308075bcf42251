/** Where a run stands. */
export type RunStatus = 'running' | 'parked' | 'completed' | 'failed' | 'cancelled';

/** Whether a run with this status has ended (completed, failed or cancelled). */
export function isEnded(status: RunStatus | undefined): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
