import type { RunResult } from '../runtime/wardrik.js';
import type { RunRow, RunStatus } from '../store/store.js';
import { EXIT } from './cli-error.js';
import type { WardrikClient } from './client.js';
import { describeCost, describeLabels, shown } from './describe.js';
import type { FollowEnd } from './follow.js';
import { invisibleLines } from './invisible-lines.js';
import { print, printJson, stdoutStyle } from './output.js';
import { paint, type Style } from './style.js';

/** Where a followed run stands: what `run --json` and `answer --json` print. */
export type RunOutcome = RunResult;

/** The exit code for a run's status: 0 completed, 3 parked, 1 otherwise. */
export function exitCodeOf(status: RunStatus): number {
  if (status === 'completed') return EXIT.ok;
  if (status === 'parked') return EXIT.parked;
  return EXIT.failed;
}

/** The outcome of a followed run: from its end record, or (parked) from its row. */
export async function outcomeOf(client: WardrikClient, runId: string, end: FollowEnd): Promise<RunOutcome> {
  if (end.type === 'ended') {
    const { status, output, error, labels, measures } = end.record;
    return {
      runId,
      status,
      ...(output === undefined ? {} : { output }),
      ...(error === undefined ? {} : { error }),
      labels,
      measures,
      parks: [],
    };
  }
  const run = await client.request<RunRow>('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  return { runId, status: 'parked', labels: run.labels, measures: run.measures, parks: end.parks };
}

/** Prints the outcome (for people, or as JSON) and returns the exit code. */
export function reportOutcome(outcome: RunOutcome, asJson: boolean, style: Style = stdoutStyle()): number {
  if (asJson) {
    printJson(outcome);
    return exitCodeOf(outcome.status);
  }
  print();
  if (outcome.status === 'parked') {
    const count = outcome.parks.length;
    print(
      paint(
        style,
        'yellow',
        `Run ${outcome.runId} is parked: it waits for a person (${count} open park${count === 1 ? '' : 's'}).`,
      ),
    );
    print(`Cost so far: ${describeCost(outcome.measures)}`);
  } else {
    if (outcome.status === 'completed')
      print(`${paint(style, 'bold', 'Final answer:')} ${shown(outcome.output ?? '')}`);
    else {
      print(
        `${paint(style, 'red', `Run ${outcome.runId} ${outcome.status}:`)} ${shown(outcome.error ?? 'no reason given')}`,
      );
    }
    for (const line of invisibleLines([outcome.output, outcome.error], style, '  ')) print(line);
    print(`Cost: ${describeCost(outcome.measures)}`);
  }
  print(`Labels: ${describeLabels(outcome.labels)}`);
  return exitCodeOf(outcome.status);
}
