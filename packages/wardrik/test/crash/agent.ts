/**
 * The agent the crash test (`child.ts`) and the cluster test (`../cluster/node.ts`) drive: a
 * read-only tool (`lookup`), an idempotent one (`charge`) and one that is not repeatable
 * (`send_email`), several at once in some steps. Every real execution of a tool appends one JSON
 * line to the exec log with `appendFileSync` (the page cache keeps it when the process is
 * SIGKILLed, and appends from several processes stay whole lines).
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { type Arguments, type ToolContext, tool } from '@wardrik/core';
import { type Agent, agentTool, defineAgent, type Model, type RequestedToolCall, TRANSFER_TOOL } from 'wardrik';
import { lastToolResults, ScriptedModel } from 'wardrik/testing';

/** One line of the exec log: a real execution of a tool. */
export interface ExecLine {
  readonly tool: 'lookup' | 'charge' | 'send_email';
  readonly idempotencyKey: string;
  readonly runId: string;
  readonly callId: string;
  /** The park whose `retry` answer allowed this execution, if any. */
  readonly approval: string | null;
  readonly nonce: string;
  readonly pid: number;
}

/** Where a process may kill itself, and what it notes. */
export interface AgentHooks {
  /** After a tool's effect, before its answer. */
  readonly afterEffect?: (tool: string, context: ToolContext) => void;
  /** A model step begins after the answers of the last one (the model sees them). */
  readonly afterAnswers?: (step: number, sendEmailNonces: readonly string[]) => void;
  /** During a model step, `delayMs` long. */
  readonly duringModel?: (step: number, delayMs: number) => void;
  /** The model has returned calls, before their intents are on disk. */
  readonly beforeIntent?: (step: number) => void;
}

/** The state key a call's executions write their nonce to (`writeState`). */
export function stateKey(runId: string, callId: string): string {
  return `user:call:${runId}:${callId}`;
}

export function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The crash test's agent, its tools logging every execution to `execLogPath`. `toolDelayMs` makes
 * every tool take about that much longer (runs then last long enough for kills to land mid-run).
 */
export function crashAgent(
  execLogPath: string,
  hooks: AgentHooks = {},
  options: { toolDelayMs?: number; writeState?: boolean } = {},
) {
  const extra = options.toolDelayMs ?? 0;
  /**
   * The body of every tool: a short wait, then the real effect (one exec-log line), then the
   * `afterEffect` hook (between the intent and the answer), then another short wait. Repeatable
   * tools sometimes fail before their effect, to be retried.
   */
  async function execute(tool: ExecLine['tool'], args: Arguments, context: ToolContext) {
    await sleep(randomInt(1, 10) + randomInt(0, extra));
    if (tool !== 'send_email' && Math.random() < 0.1) throw new Error(`${tool}: flaky backend, try again`);
    const nonce = randomUUID();
    const line: ExecLine = {
      tool,
      idempotencyKey: context.idempotencyKey,
      runId: context.runId,
      callId: context.callId,
      approval: context.approval?.parkId ?? null,
      nonce,
      pid: process.pid,
    };
    appendFileSync(execLogPath, `${JSON.stringify(line)}\n`);
    // Each execution writes its nonce to state: only the one whose answer is journaled may be stored.
    if (options.writeState) context.state.set(stateKey(context.runId, context.callId), nonce);
    hooks.afterEffect?.(tool, context);
    await sleep(randomInt(0, 10) + randomInt(0, extra));
    return { tool, nonce, ...args };
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

  const email = (to: string, subject: string): RequestedToolCall => ({
    name: 'send_email',
    arguments: { to, subject },
  });
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
    const results = lastToolResults(request);
    if (results.length > 0) {
      const nonces = results.flatMap((result) => {
        const nonce = (result.content as { nonce?: unknown } | null)?.nonce;
        return result.name === 'send_email' && typeof nonce === 'string' ? [nonce] : [];
      });
      hooks.afterAnswers?.(request.step, nonces);
    }
    const delayMs = randomInt(1, 12);
    hooks.duringModel?.(request.step, delayMs);
    const toolCalls = script[request.step - 1];
    return toolCalls ? { toolCalls, delayMs } : { text: 'done', delayMs };
  });
  const model: Model = {
    id: scripted.id,
    async generate(request, options) {
      const response = await scripted.generate(request, options);
      if (response.toolCalls.length > 0 && hooks.beforeIntent) {
        setImmediate(() => hooks.beforeIntent?.(request.step));
      }
      return response;
    },
  };
  return defineAgent({
    name: 'crashy',
    instructions: 'Look the customer up, charge them, and send the emails.',
    model,
    tools: [lookup, charge, sendEmail],
  });
}

/**
 * The crash agent, and two that reach it another way: `desk` hands each run to it at once
 * (`transfer_to_agent`: the run goes on under crashy), and `boss` calls it as a tool (a child run,
 * whose answer `done` is boss's call's answer), then answers.
 */
export function crashAgents(crashy: Agent): Agent[] {
  const desk = defineAgent({
    name: 'desk',
    instructions: 'Hand every request to crashy.',
    subAgents: [crashy],
    model: new ScriptedModel(() => ({
      toolCalls: [{ name: TRANSFER_TOOL, arguments: { agent_name: 'crashy', reason: 'it does the work' } }],
      delayMs: randomInt(1, 5),
    })),
  });
  const boss = defineAgent({
    name: 'boss',
    instructions: 'Ask crashy to do the work, then report.',
    tools: [agentTool(crashy)],
    model: new ScriptedModel((request) => {
      const answered = lastToolResults(request).find((result) => result.name === 'crashy');
      if (answered) return { text: `crashy said ${JSON.stringify(answered.content)}`, delayMs: randomInt(1, 5) };
      return { toolCalls: [{ name: 'crashy', arguments: { request: 'order for boss' } }], delayMs: randomInt(1, 5) };
    }),
  });
  return [crashy, desk, boss];
}
