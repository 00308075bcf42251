/**
 * A child process for the crash test (`../crash.test.ts`), killed with SIGKILL by its parent or by
 * itself at named points.
 *
 *   node --conditions=@wardrik/source --import tsx packages/wardrik/test/crash/child.ts \
 *     <dbPath> <execLogPath> start <count> | recover | answer <offset>
 *
 * - `start N`: starts N runs, printing `{"runId":…}` as soon as each is durably on disk.
 * - `recover`: only recovers (opening the store re-drives the runs that were running).
 * - `answer OFFSET`: answers every open `in_doubt` park, choosing `answer` / `retry` / `fail` in
 *   turn from OFFSET, printing `{"answered":…,"decision":…}` for each.
 * Every mode then waits until no run is running and prints `{"done":true}`.
 *
 * Every real execution of a tool appends one JSON line to the exec log with `appendFileSync`: the
 * page cache keeps it when the process is SIGKILLed. Self-kills (env `CRASH_POINT`, one of
 * `tool`, `model`, `before-intent`, `after-answer`, with probability `CRASH_PROBABILITY` per
 * opportunity) are noted in the file `CRASH_NOTES` first, so the parent knows where they landed;
 * so is every `send_email` answer the model was shown (`seen`).
 */
import { appendFileSync, writeSync } from 'node:fs';
import { createWardrik, sqliteStore } from 'wardrik';
import { crashAgent, crashAgents, randomInt, sleep } from './agent.js';

const [dbPath, execLogPath, mode = 'recover', modeArgument] = process.argv.slice(2);
if (!dbPath || !execLogPath) {
  process.stderr.write('usage: child.ts <dbPath> <execLogPath> start <count> | recover | answer <offset>\n');
  process.exit(2);
}

const crashPoint = process.env.CRASH_POINT ?? 'none';
const crashProbability = Number(process.env.CRASH_PROBABILITY ?? '0');
const notesPath = process.env.CRASH_NOTES;
/** Which child this is, as the parent counts them (pids may be reused). */
const childId = process.env.CRASH_CHILD ?? String(process.pid);

/** One line on stdout, written synchronously so that it reaches the parent even if a SIGKILL follows. */
function print(value: unknown): void {
  writeSync(1, `${JSON.stringify(value)}\n`);
}

function note(value: Record<string, unknown>): void {
  if (notesPath) appendFileSync(notesPath, `${JSON.stringify({ ...value, child: childId })}\n`);
}

/** At a named point, maybe die at once (the note comes first). */
function maybeKill(point: string, detail: Record<string, unknown> = {}): void {
  if (point !== crashPoint || Math.random() >= crashProbability) return;
  note({ type: 'kill', point, ...detail });
  process.kill(process.pid, 'SIGKILL');
}

const agent = crashAgent(
  execLogPath,
  {
    afterEffect: (tool, context) => maybeKill('tool', { tool, idempotencyKey: context.idempotencyKey }),
    afterAnswers: (step, sendEmailNonces) => {
      // A new model step after the calls of the last one answered: the model sees their answers.
      for (const nonce of sendEmailNonces) note({ type: 'seen', nonce });
      maybeKill('after-answer', { step });
    },
    // During the model step: the model is thinking and nothing of this step is written.
    duringModel: (step, delayMs) => {
      if (crashPoint === 'model') setTimeout(() => maybeKill('model', { step }), randomInt(0, delayMs));
    },
    // The model has returned calls, and the kill comes on the next macrotask, after the driver took
    // the answer but before the store's flush of the intents (scheduled later with its own
    // setImmediate) and before any tool's effect (each waits on a timer first).
    beforeIntent: (step) => maybeKill('before-intent', { step }),
  },
  { writeState: true },
);

const watchdog = setTimeout(() => {
  process.stderr.write('child: gave up after 30 s\n');
  process.exit(3);
}, 30_000);

const wardrik = await createWardrik({
  store: sqliteStore(dbPath),
  agents: crashAgents(agent),
  toolRetry: { attempts: 8, baseDelayMs: 2, maxDelayMs: 20 },
  modelRetry: { attempts: 4, baseDelayMs: 2, maxDelayMs: 20 },
});
print({ ready: true, pid: process.pid });

if (mode === 'start') {
  const count = Number(modeArgument ?? '1');
  for (let index = 0; index < count; index++) {
    // Runs of the agent itself, handed to it (desk), or calling it as a child run (boss).
    const agentName = ['crashy', 'desk', 'boss'][(index + Number(childId)) % 3] as string;
    const { runId } = await wardrik.start(agentName, `order ${index}`);
    print({ runId });
  }
} else if (mode === 'answer') {
  const decisions = ['answer', 'retry', 'fail'] as const;
  let turn = Number(modeArgument ?? '0');
  for (const park of await wardrik.listParks({ status: 'open' })) {
    if (park.kind !== 'in_doubt') continue;
    const type = decisions[turn % decisions.length] as (typeof decisions)[number];
    turn += 1;
    const decision =
      type === 'answer'
        ? { type, value: 'it ran' }
        : type === 'retry'
          ? { type, note: 'it did not run' }
          : { type, reason: 'do not send it' };
    await wardrik.answerPark(park.id, decision, { callHash: park.callHash, by: 'crash-test' });
    print({ answered: park.id, decision: type });
  }
} else if (mode !== 'recover') {
  process.stderr.write(`child: unknown mode ${mode}\n`);
  process.exit(2);
}

// Wait until every run has parked or ended, and every parent waiting on a child that ended has
// been told (the child's end answers its parent's wait).
for (;;) {
  const running = await wardrik.listRuns({ status: 'running' });
  if (running.length === 0 && wardrik.activeRuns === 0 && !(await childEndedUntold())) break;
  if (running.length === 0) await sleep(5);
  else await Promise.all(running.map((run) => wardrik.wait(run.id)));
}

async function childEndedUntold(): Promise<boolean> {
  for (const park of await wardrik.listParks({ status: 'open', kind: 'external' })) {
    const child = park.handle?.startsWith('child:') ? park.handle.slice(6) : undefined;
    if (child === undefined) continue;
    const status = (await wardrik.getRunSummary(child)).status;
    if (status === 'completed' || status === 'failed' || status === 'cancelled') return true;
  }
  return false;
}
await wardrik.close();
clearTimeout(watchdog);
print({ done: true });
