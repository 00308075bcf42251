/** Where a run stands. */
export type RunStatus = 'running' | 'parked' | 'completed' | 'failed' | 'cancelled';
