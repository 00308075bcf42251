import type { Wardrik } from 'wardrik';

/**
 * Runs `agent` once on `input` and throws unless the run completed: a benchmark whose runs end
 * early (a `maxSteps` too low, a gate, a failure) would time work that was never done.
 */
export async function completedRun(wardrik: Wardrik, agent = 'bench', input = 'go'): Promise<void> {
  const result = await wardrik.run(agent, input);
  if (result.status !== 'completed') {
    throw new Error(`a run of ${agent} ended ${result.status}${result.error ? `: ${result.error}` : ''}`);
  }
}
