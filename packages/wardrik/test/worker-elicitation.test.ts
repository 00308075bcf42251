/*
 * What a worker's MCP server asks during a call reaches the call that asked: its
 * `elicitation/create` goes to the call's `context.requestInput`, its `sampling/createMessage` to
 * `context.sample` (when workers may sample). A real Wardrik (SQLite, HTTP server), real
 * WebSockets, workers built with the official MCP SDK connected in this process through
 * `connectWorker`. The runtime behind `requestInput`/`sample` (parks of kind `input`, the agent's
 * model) is not built yet: the calls run with a CallContext whose `requestInput` and `sample` are
 * the test's, standing for the person and the model.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  type Answer,
  CallContext,
  type InputQuestion,
  type InputReply,
  type SampleRequest,
  type SampleResult,
} from '@wardrik/core';
import { connectWorker, type WorkerConnection } from '@wardrik/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerWorkerQuestion, ELSEWHERE_ASKER } from '../src/workers/worker-questions.js';
import { answersOf, type WorkersEnv as Env, plan, until, WorkersEnv, workerCall } from './workers-env.js';

/** The idle timeout of `ask_form`'s listing: a person answering later than this must not lose the call. */
const IDLE_MS = 500;

const FORM = {
  type: 'object',
  properties: {
    account: { type: 'string', title: 'Account' },
    amount: { type: 'integer', minimum: 1, default: 10 },
  },
  required: ['account'],
} as const;

/** What the tools saw their questions answered with (or the error they got), as JSON text. */
function text(value: unknown) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value) }] };
}

function failure(cause: unknown) {
  const { code, message } = cause as { code?: number; message?: string };
  return text({ error: { code, message } });
}

/** An MCP SDK server whose tools ask Wardrik things while they run. */
function askingServer(): McpServer {
  const server = new McpServer({ name: 'asking', version: '1.0.0' });
  server.registerTool(
    'ask_form',
    {
      description: 'Asks a person for an account.',
      // Read-only: a run calls it without an approval first (worker tools are gated otherwise).
      annotations: { readOnlyHint: true },
      _meta: { 'wardrik/timeout': IDLE_MS },
    },
    async (extra) => {
      try {
        const result = await server.server.elicitInput(
          { message: 'Which account?', requestedSchema: FORM as never },
          { relatedRequestId: extra.requestId },
        );
        return text(result);
      } catch (cause) {
        return failure(cause);
      }
    },
  );
  server.registerTool('ask_form_raw', { description: 'Asks through extra.sendRequest.' }, async (extra) => {
    try {
      const result = await extra.sendRequest(
        { method: 'elicitation/create', params: { mode: 'form', message: 'Which account?', requestedSchema: FORM } },
        ElicitResultSchema,
      );
      return text(result);
    } catch (cause) {
      return failure(cause);
    }
  });
  server.registerTool('ask_url', { description: 'Sends a person to a page.' }, async (extra) => {
    try {
      const result = await server.server.elicitInput(
        {
          mode: 'url',
          message: 'Sign in to the bank',
          url: 'https://bank.example/authorize?x=1',
          elicitationId: 'el-1',
        },
        { relatedRequestId: extra.requestId },
      );
      return text(result);
    } catch (cause) {
      return failure(cause);
    }
  });
  server.registerTool('ask_model', { description: "Asks the agent's model." }, async (extra) => {
    try {
      const result = await server.server.createMessage(
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: the order shipped.' } }],
          systemPrompt: 'Be brief.',
          maxTokens: 50,
        },
        { relatedRequestId: extra.requestId },
      );
      return text(result);
    } catch (cause) {
      return failure(cause);
    }
  });
  server.registerTool('ask_unrelated', { description: 'Asks outside any call.' }, async () => {
    try {
      // No relatedRequestId: nothing says which call this is for.
      const result = await server.server.elicitInput({ message: 'Anyone?', requestedSchema: FORM as never });
      return text(result);
    } catch (cause) {
      return failure(cause);
    }
  });
  server.registerTool('ask_other_call', { description: 'Names a call that is not waiting.' }, async () => {
    try {
      // The server names the call itself (as a bridged server may), but no such call is waiting.
      const result = await server.server.request(
        {
          method: 'elicitation/create',
          params: { message: 'Which account?', requestedSchema: FORM, _meta: { 'wardrik/related-call': 987_654 } },
        },
        ElicitResultSchema,
      );
      return text(result);
    } catch (cause) {
      return failure(cause);
    }
  });
  server.registerTool('ask_then_withdraw', { description: 'Asks, then stops asking.' }, async (extra) => {
    const withdraw = new AbortController();
    withdrawQuestion = () => withdraw.abort(new Error('the server stopped asking'));
    try {
      const result = await server.server.elicitInput(
        { message: 'Which account?', requestedSchema: FORM as never },
        { relatedRequestId: extra.requestId, signal: withdraw.signal },
      );
      return text(result);
    } catch (cause) {
      return failure(cause);
    }
  });
  return server;
}

/** Makes `ask_then_withdraw`'s server cancel its open question (`notifications/cancelled`). */
let withdrawQuestion: () => void = () => {};

/** The person and the model, as the test plays them, and what they were asked. */
class Asked {
  readonly questions: { question: InputQuestion; signal: AbortSignal | undefined }[] = [];
  readonly samples: SampleRequest[] = [];
  reply: (question: InputQuestion, signal: AbortSignal | undefined) => Promise<InputReply> = async () => ({
    action: 'cancel',
  });

  context(signal = new AbortController().signal): CallContext {
    return new CallContext({
      runId: `run_${randomUUID()}`,
      agent: 'support',
      principal: 'tester',
      callId: randomUUID(),
      idempotencyKey: randomUUID(),
      signal,
      requestInput: (question, options) => {
        this.questions.push({ question, signal: options?.signal });
        return this.reply(question, options?.signal);
      },
      sample: async (request): Promise<SampleResult> => {
        this.samples.push(request);
        return { text: 'It shipped.', model: 'scripted-1', stopReason: 'endTurn' };
      },
    });
  }
}

/** Two Wardriks: one lets workers sample, one does not (the default). */
let sampling: Env;
let plain: Env;
const workers: WorkerConnection[] = [];

async function connect(env: Env): Promise<void> {
  const principal = await env.principal(['*']);
  const worker = connectWorker({ url: env.url, token: principal.token, server: askingServer() });
  workers.push(worker);
  await worker.ready;
}

beforeAll(async () => {
  [sampling, plain] = await Promise.all([WorkersEnv.start({ workers: { sampling: true } }), WorkersEnv.start()]);
  await Promise.all([connect(sampling), connect(plain)]);
});
afterAll(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
  await Promise.all([sampling?.close(), plain?.close()]);
});

/** Runs worker tool `name` for agent `support` with `context`, as a run's call would. */
async function call(env: Env, name: string, context: CallContext): Promise<Answer> {
  const tool = env.wardrik.workers.toolsFor('support', ['workers/*']).get(`workers__${name}`);
  if (!tool) throw new Error(`no worker offers ${name}`);
  return (await tool.run({}, context)) as Answer;
}

/** What the tool saw, from its answer's text. */
function seen(answer: Answer): Record<string, unknown> {
  expect(answer.type).toBe('ok');
  return JSON.parse(String((answer as { value: unknown }).value)) as Record<string, unknown>;
}

describe('elicitation from a worker, during a call', () => {
  it("accept: the person's content reaches the server, a field left out gets its default (SEP-1034)", async () => {
    const asked = new Asked();
    asked.reply = async () => ({ action: 'accept', content: { account: 'savings' } });
    const answer = await call(plain, 'ask_form', asked.context());
    expect(seen(answer)).toEqual({ action: 'accept', content: { account: 'savings', amount: 10 } });
    expect(asked.questions).toHaveLength(1);
    expect(asked.questions[0]?.question).toEqual({ mode: 'form', message: 'Which account?', schema: FORM });
    expect(asked.questions[0]?.signal).toBeInstanceOf(AbortSignal);

    // Given, a field's value is the person's, not the default; through extra.sendRequest alike.
    asked.reply = async () => ({ action: 'accept', content: { account: 'checking', amount: 3 } });
    expect(seen(await call(plain, 'ask_form_raw', asked.context()))).toEqual({
      action: 'accept',
      content: { account: 'checking', amount: 3 },
    });
  });

  it('decline and cancel reach the server as they are', async () => {
    const asked = new Asked();
    asked.reply = async () => ({ action: 'decline' });
    expect(seen(await call(plain, 'ask_form', asked.context()))).toEqual({ action: 'decline' });
    asked.reply = async () => ({ action: 'cancel' });
    expect(seen(await call(plain, 'ask_form', asked.context()))).toEqual({ action: 'cancel' });
  });

  it('a person taking longer than the call idle timeout does not lose the call', async () => {
    const asked = new Asked();
    asked.reply = () =>
      new Promise((resolve) =>
        setTimeout(() => resolve({ action: 'accept', content: { account: 'late' } }), IDLE_MS * 3),
      );
    expect(seen(await call(plain, 'ask_form', asked.context()))).toEqual({
      action: 'accept',
      content: { account: 'late', amount: 10 },
    });
  });

  it('url mode: the person is shown the URL and its id; accept carries no content', async () => {
    const asked = new Asked();
    asked.reply = async () => ({ action: 'accept' });
    expect(seen(await call(plain, 'ask_url', asked.context()))).toEqual({ action: 'accept' });
    expect(asked.questions[0]?.question).toEqual({
      mode: 'url',
      message: 'Sign in to the bank',
      url: 'https://bank.example/authorize?x=1',
      elicitationId: 'el-1',
    });
  });

  it('content that does not fit the requested schema: the server gets an error naming the field, not the value', async () => {
    const asked = new Asked();
    asked.reply = async () => ({ action: 'accept', content: { account: 42, amount: 0, extra: 'secret-value' } });
    const { error } = seen(await call(plain, 'ask_form', asked.context())) as {
      error: { code: number; message: string };
    };
    expect(error.message).toContain('does not fit the requested schema');
    expect(error.message).toContain('content.account');
    expect(error.message).toContain('content.amount');
    expect(error.message).toContain('content.extra: not a field of the form');
    expect(error.message).not.toContain('secret-value');
  });

  it('the call aborting while the question is open: the question is stopped, the call cancelled', async () => {
    const asked = new Asked();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    let stoppedWith: unknown;
    asked.reply = (_question, signal) =>
      new Promise((_resolve, reject) => {
        opened();
        signal?.addEventListener('abort', () => {
          stoppedWith = signal.reason;
          reject(signal.reason);
        });
      });
    const run = new AbortController();
    const answering = call(plain, 'ask_form', asked.context(run.signal));
    await open;
    run.abort(new Error('the run was cancelled'));
    const answer = await answering;
    expect(answer).toMatchObject({ type: 'error', code: 'cancelled' });
    expect(asked.questions[0]?.signal?.aborted).toBe(true);
    expect(String(stoppedWith)).toMatch(/cancelled/);
  });

  it('a request related to no call is refused with a clear error, and nobody is asked', async () => {
    const asked = new Asked();
    const { error } = seen(await call(plain, 'ask_unrelated', asked.context())) as {
      error: { code: number; message: string };
    };
    expect(error.code).toBe(-32601);
    expect(error.message).toMatch(/relates to none/);
    expect(error.message).toContain('relatedRequestId');
    expect(asked.questions).toEqual([]);
  });
});

describe('questions Wardrik cannot relate to a waiting call', () => {
  it('a question naming a call that is not waiting is refused by Wardrik, naming the id', async () => {
    const asked = new Asked();
    const { error } = seen(await call(plain, 'ask_other_call', asked.context())) as {
      error: { code: number; message: string };
    };
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("params._meta['wardrik/related-call']: no call with id 987654 is waiting");
    expect(asked.questions).toEqual([]);
  });

  it('the server cancelling its question stops it: the person is no longer asked', async () => {
    const asked = new Asked();
    let opened!: () => void;
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    asked.reply = (_question, signal) =>
      new Promise((_resolve, reject) => {
        opened();
        signal?.addEventListener('abort', () => reject(signal.reason));
      });
    const answering = call(plain, 'ask_then_withdraw', asked.context());
    await open;
    withdrawQuestion();
    const { error } = seen(await answering) as { error: { message: string } };
    expect(error.message).toMatch(/the server stopped asking/);
    await until(() => asked.questions[0]?.signal?.aborted === true);
  });
});

describe('sampling from a worker, during a call', () => {
  it("allowed (workers: { sampling: true }): the call's context asks the model, the server gets its text", async () => {
    const asked = new Asked();
    expect(seen(await call(sampling, 'ask_model', asked.context()))).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'It shipped.' },
      model: 'scripted-1',
      stopReason: 'endTurn',
    });
    expect(asked.samples).toEqual([
      { messages: [{ role: 'user', text: 'Summarize: the order shipped.' }], systemPrompt: 'Be brief.', maxTokens: 50 },
    ]);
  });

  it('not allowed (the default): a clear error saying how to allow it, and the model is not asked', async () => {
    const asked = new Asked();
    const { error } = seen(await call(plain, 'ask_model', asked.context())) as {
      error: { code: number; message: string };
    };
    expect(error.message).toContain('sampling is not allowed for workers (set workers: { sampling: true }');
    expect(asked.samples).toEqual([]);
  });

  it('workers.sampling that is not a boolean is refused, naming the field', async () => {
    await expect(WorkersEnv.start({ workers: { sampling: 'yes' as never } })).rejects.toThrow(
      'workers.sampling: expected true or false, got "yes"',
    );
  });
});

describe('questions of a call served for a run on another node', () => {
  it("are refused: input can only be asked of a worker on the run's node", async () => {
    const signal = new AbortController().signal;
    const answer = await answerWorkerQuestion(
      'elicitation/create',
      { message: 'Which account?', requestedSchema: FORM },
      { asker: ELSEWHERE_ASKER, signal, sampling: true },
    );
    expect(answer).toEqual({
      error: {
        code: -32600,
        message:
          "elicitation/create: the worker is connected to another node than the run; input can only be asked of a worker on the run's node",
      },
    });
  });
});

describe('bad questions', () => {
  const asker = {
    requestInput: () => Promise.reject(new Error('not asked')),
    sample: () => Promise.reject(new Error('no')),
  };
  const options = { asker, signal: new AbortController().signal, sampling: true };

  it('each names the field and what was expected', async () => {
    const bad = async (method: string, params: Record<string, unknown>) => {
      const answer = await answerWorkerQuestion(method, params, options);
      return 'error' in answer ? answer.error.message : 'answered';
    };
    expect(await bad('elicitation/create', { requestedSchema: FORM })).toBe(
      'elicitation/create: params.message: expected a string, got undefined',
    );
    expect(await bad('elicitation/create', { message: 'm', requestedSchema: { type: 'string' } })).toContain(
      "params.requestedSchema: expected an object schema ({ type: 'object'",
    );
    expect(await bad('elicitation/create', { mode: 'url', message: 'm', url: 'not a url' })).toBe(
      'elicitation/create: params.url: expected an absolute URL, got "not a url"',
    );
    expect(await bad('elicitation/create', { mode: 'sms', message: 'm' })).toBe(
      `elicitation/create: params.mode: expected 'form' or 'url', got "sms"`,
    );
    expect(await bad('sampling/createMessage', { messages: [], maxTokens: 5 })).toBe(
      'sampling/createMessage: params.messages: expected a non-empty array, got an empty one',
    );
    expect(
      await bad('sampling/createMessage', {
        messages: [{ role: 'user', content: { type: 'image', data: '', mimeType: 'image/png' } }],
        maxTokens: 5,
      }),
    ).toBe(
      `sampling/createMessage: params.messages[0].content: Wardrik samples text only (type 'text' with a text), got "image"`,
    );
    expect(
      await bad('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] }),
    ).toBe('sampling/createMessage: params.maxTokens: expected a positive integer, got undefined');
  });
});

describe('end to end: a run whose worker tool asks a person', () => {
  /** Starts a run of `support` calling `ask_form`, and waits for its open input park. */
  async function parkedRun() {
    const { runId } = await plain.wardrik.start('support', plan([workerCall('ask_form', {})]));
    let park: Awaited<ReturnType<Env['wardrik']['listParks']>>[number] | undefined;
    await until(async () => {
      park = (await plain.wardrik.listParks({ runId, status: 'open', kind: 'input' }))[0];
      return park !== undefined;
    });
    if (!park) throw new Error('no input park');
    return { runId, park };
  }

  it("the question is an input park; the person's answer (defaults filled in) completes the call", async () => {
    const { runId, park } = await parkedRun();
    expect(park).toMatchObject({
      kind: 'input',
      reason: 'Which account?',
      details: { mode: 'form', schema: FORM },
      call: { name: 'workers__ask_form' },
    });
    expect((await plain.wardrik.getRunSummary(runId)).status).toBe('running');
    await plain.wardrik.answerPark(
      park.id,
      { type: 'answer', value: { account: 'savings' } },
      { callHash: park.callHash },
    );
    const result = await plain.wardrik.wait(runId);
    expect(result.status).toBe('completed');
    const [answer] = answersOf(result.output);
    expect(answer?.isError).toBe(false);
    expect(JSON.parse(String(answer?.content))).toEqual({
      action: 'accept',
      content: { account: 'savings', amount: 10 },
    });
  });

  it('denied, the server is told the person declined', async () => {
    const { runId, park } = await parkedRun();
    await plain.wardrik.answerPark(park.id, { type: 'deny' }, { callHash: park.callHash });
    const result = await plain.wardrik.wait(runId);
    expect(result.status).toBe('completed');
    expect(JSON.parse(String(answersOf(result.output)[0]?.content))).toEqual({ action: 'decline' });
  });
});
