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
import { randomUUID } from 'node:crypto';
import { appendFileSync, writeSync } from 'node:fs';
import { type Arguments, type ToolContext, tool } from '@wardrik/core';
import { createWardrik, defineAgent, type Model, type RequestedToolCall, sqliteStore } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

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

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The body of every tool: a short wait, then the real effect (one exec-log line), then maybe a
 * self-kill (between the intent and the answer), then another short wait. Repeatable tools
 * sometimes fail before their effect, to be retried.
 */
async function execute(name: string, args: Arguments, context: ToolContext): Promise<Record<string, unknown>> {
  await sleep(randomInt(1, 10));
  if (name !== 'send_email' && Math.random() < 0.1) throw new Error(`${name}: flaky backend, try again`);
  const nonce = randomUUID();
  const line = {
    tool: name,
    idempotencyKey: context.idempotencyKey,
    runId: context.runId,
    callId: context.callId,
    approval: context.approval?.parkId ?? null,
    nonce,
    pid: process.pid,
  };
  appendFileSync(execLogPath as string, `${JSON.stringify(line)}\n`);
  maybeKill('tool', { tool: name, idempotencyKey: context.idempotencyKey });
  await sleep(randomInt(0, 10));
  return { tool: name, nonce, ...args };
}

const lookup = tool({
  name: 'lookup',
  description: 'Looks a customer up (read-only).',
  schema: { key: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: (args, context) => execute('lookup', args, context),
});

const charge = tool({
  name: 'charge',
  description: 'Charges a card; the payment API dedupes on the idempotency key.',
  schema: { amount: { type: 'number', required: true } },
  annotations: { idempotent: true },
  run: async (args, context) => ({
    ...(await execute('charge', args, context)),
    chargeId: `ch_${context.idempotencyKey}`,
  }),
});

const sendEmail = tool({
  name: 'send_email',
  description: 'Sends an email: not safe to repeat.',
  schema: { to: { type: 'string', required: true }, subject: { type: 'string', required: true } },
  run: (args, context) => execute('send_email', args, context),
});

const email = (to: string, subject: string): RequestedToolCall => ({ name: 'send_email', arguments: { to, subject } });

/** The calls of each model step, three times over: a mix of kinds, several at once in some steps. */
const script: readonly (readonly RequestedToolCall[])[] = ['order', 'refund', 'upgrade'].flatMap((topic) => [
  [{ name: 'lookup', arguments: { key: `${topic}:customer` } }],
  [{ name: 'charge', arguments: { amount: 5 } }, email('customer@example.com', `${topic}: receipt`)],
  [
    email('ops@example.com', `${topic}: new`),
    email('customer@example.com', `${topic}: shipping`),
    { name: 'lookup', arguments: { key: `${topic}:stock` } },
  ],
  [{ name: 'charge', arguments: { amount: 2 } }],
  [
    email('customer@example.com', `${topic}: survey`),
    { name: 'charge', arguments: { amount: 1 } },
    { name: 'lookup', arguments: { key: `${topic}:crm` } },
  ],
]);

const scripted = new ScriptedModel((request) => {
  // A new model step after the calls of the last one answered: the model sees their answers.
  const results = lastToolResults(request);
  for (const result of results) {
    const nonce = (result.content as { nonce?: unknown } | null)?.nonce;
    if (result.name === 'send_email' && typeof nonce === 'string') note({ type: 'seen', nonce });
  }
  if (results.length > 0) maybeKill('after-answer', { step: request.step });
  const delayMs = randomInt(1, 12);
  // During the model step: the model is thinking and nothing of this step is written.
  if (crashPoint === 'model') setTimeout(() => maybeKill('model', { step: request.step }), randomInt(0, delayMs));
  const toolCalls = script[request.step - 1];
  return toolCalls ? { toolCalls, delayMs } : { text: 'done', delayMs };
});

/**
 * The scripted model, plus the `before-intent` point: the model has returned calls, and the kill
 * comes on the next macrotask, after the driver took the answer but before the store's flush of
 * the intents (scheduled later with its own `setImmediate`) and before any tool's effect (each
 * waits on a timer first).
 */
const model: Model = {
  id: scripted.id,
  async generate(request, options) {
    const response = await scripted.generate(request, options);
    if (response.toolCalls.length > 0) setImmediate(() => maybeKill('before-intent', { step: request.step }));
    return response;
  },
};

const agent = defineAgent({
  name: 'crashy',
  instructions: 'Look the customer up, charge them, and send the emails.',
  model,
  tools: [lookup, charge, sendEmail],
});

const watchdog = setTimeout(() => {
  process.stderr.write('child: gave up after 30 s\n');
  process.exit(3);
}, 30_000);

const wardrik = await createWardrik({
  store: sqliteStore(dbPath),
  agents: [agent],
  toolRetry: { attempts: 8, baseDelayMs: 2, maxDelayMs: 20 },
  modelRetry: { attempts: 4, baseDelayMs: 2, maxDelayMs: 20 },
});
print({ ready: true, pid: process.pid });

if (mode === 'start') {
  const count = Number(modeArgument ?? '1');
  for (let index = 0; index < count; index++) {
    const { runId } = await wardrik.start('crashy', `order ${index}`);
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

// Wait until every run has parked or ended.
for (;;) {
  const running = await wardrik.listRuns({ status: 'running' });
  if (running.length === 0 && wardrik.activeRuns === 0) break;
  if (running.length === 0) await sleep(5);
  else await Promise.all(running.map((run) => wardrik.wait(run.id)));
}
await wardrik.close();
clearTimeout(watchdog);
print({ done: true });
