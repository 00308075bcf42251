// The one workload every framework of `npm run bench -- peers` runs (bench/peers.ts): one agent,
// one in-process `add` tool, a zero-latency scripted model that makes one call per step and then
// answers. Each framework's scripted model calls `nextTurn` with what it reads from its own
// prompt format, so that every framework is asked for exactly the same work.

/** Sizes of the runs measured. */
export const WORKLOAD = {
  /** Runs of 10 calls: warm-ups, then timed runs. */
  shortCalls: 10,
  warmRuns: 20,
  shortRuns: 100,
  /** One long run: the step cost at steps 991–1010 against steps 6–25. */
  longCalls: 1010,
  /** 64 concurrent runs of 100 calls. */
  concurrentRuns: 64,
  concurrentCalls: 100,
} as const;

/** What the scripted model does next. */
export type Turn =
  | { readonly type: 'call'; readonly callId: string; readonly arguments: { readonly a: number; readonly b: number } }
  | { readonly type: 'final'; readonly text: string };

/** The tool, the same everywhere: `add({ a, b })` answers `a + b`. */
export const addTool = {
  name: 'add',
  description: 'Adds two numbers.',
  run: ({ a, b }: { a: number; b: number }): number => a + b,
};

/** The run's input: how many calls the model makes before it answers. */
export function inputFor(calls: number): string {
  return String(calls);
}

/** The final answer a run of `calls` calls gives; each child checks it. */
export function expectedOutput(calls: number): string {
  return `done: ${calls}`;
}

let marks: number[] | undefined;

/** Record the time of every model turn from now on (for the long run's step times). */
export function startMarking(): void {
  marks = [];
}

/** Stop recording; the times of the model turns since `startMarking`. */
export function stopMarking(): number[] {
  const recorded = marks ?? [];
  marks = undefined;
  return recorded;
}

/**
 * The scripted model's decision. It reads only the run's input (how many calls) and the result of
 * the last call (undefined on the first step), so that it costs the same at every step, holds no
 * state between turns, and serves concurrent runs: call `add({ a: last, b: 1 })` until the count
 * is reached, then answer `done: N` (which proves that every call ran and its result was seen).
 */
export function nextTurn(input: string, lastResult: number | undefined): Turn {
  if (marks) marks.push(performance.now());
  const calls = Number(input);
  const done = lastResult ?? 0;
  if (!Number.isInteger(calls) || !Number.isInteger(done)) {
    throw new Error(`scripted model: cannot read the workload (input ${input}, last result ${lastResult})`);
  }
  if (done < calls) return { type: 'call', callId: `call_${done + 1}`, arguments: { a: done, b: 1 } };
  return { type: 'final', text: expectedOutput(done) };
}

/** A tool result as a framework hands it back to the model (a number, or text holding one). */
export function resultNumber(content: unknown): number {
  if (typeof content === 'number') return content;
  if (typeof content === 'string') return Number(JSON.parse(content));
  throw new Error(`scripted model: unexpected tool result ${JSON.stringify(content)}`);
}
