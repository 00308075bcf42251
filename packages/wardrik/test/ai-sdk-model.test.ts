/*
 * AI SDK models end to end (issue 7, "Tests"): a local OpenAI-compatible server speaking the real
 * chat-completions wire format (streamed SSE chunks, tool calls, usage), reached through the real
 * provider packages (`@ai-sdk/openai`, `@ai-sdk/openai-compatible`) and driven by Wardrik's real
 * runtime on a SQLite file.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Model, modelFromString, type RunEvent, type Wardrik } from '../src/index.js';
import { toModelMessages } from '../src/model/ai-sdk-prompt.js';
import { retryAfterFrom } from '../src/model/model-errors.js';
import { type ChatRequest, type FakeOpenAI, type Reply, startFakeOpenAI } from './ai-sdk/fake-openai.js';
import { INSTRUCTIONS, ordersReply, supportAgent } from './ai-sdk/orders.js';
import { modelSteps, openWardrik, tempDbPath, until } from './helpers.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const childPath = fileURLToPath(new URL('./ai-sdk/crash-child.ts', import.meta.url));

let server: FakeOpenAI | undefined;
let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
  await server?.close();
  server = undefined;
});

async function serve(handler: (request: ChatRequest) => Reply | Promise<Reply>): Promise<FakeOpenAI> {
  server = await startFakeOpenAI(handler);
  return server;
}

/** `openai:test-model` through `@ai-sdk/openai` (chat completions) pointed at the local server. */
function openaiModel(fake: FakeOpenAI, options: Parameters<typeof modelFromString>[2] = {}): Model {
  return modelFromString(
    'openai:test-model',
    { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url },
    { log: () => {}, ...options },
  );
}

async function openRuntime(model: Model, path = tempDbPath()): Promise<Wardrik> {
  wardrik = await openWardrik(path, [supportAgent(model)]);
  return wardrik;
}

describe('aiSdkModel against a local chat-completions server', () => {
  it('runs several steps with tool calls: the server gets the tool definitions, then the results', async () => {
    const fake = await serve(ordersReply);
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Where are A1 and B2?');

    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'Here you are: call_A1={"order_id":"A1","status":"shipped"}; call_B2={"order_id":"B2","status":"packed"}',
    );
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests as [ChatRequest, ChatRequest];
    expect(first.headers.authorization).toBe('Bearer sk-test');
    expect(first.body.stream).toBe(true);
    expect(first.body.messages.slice(0, 2)).toEqual([
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: 'Where are A1 and B2?' },
    ]);
    expect(first.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'lookup_order',
          description: 'Look an order up by its id.',
          parameters: expect.objectContaining({
            type: 'object',
            properties: { order_id: expect.objectContaining({ type: 'string' }) },
            required: ['order_id'],
          }),
        },
      },
    ]);
    // Step 2 carries step 1's calls under the model's own ids, and their results.
    expect(second.body.messages.slice(2)).toEqual([
      expect.objectContaining({
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          expect.objectContaining({
            id: 'call_A1',
            function: { name: 'lookup_order', arguments: '{"order_id":"A1"}' },
          }),
          expect.objectContaining({
            id: 'call_B2',
            function: { name: 'lookup_order', arguments: '{"order_id":"B2"}' },
          }),
        ],
      }),
      { role: 'tool', tool_call_id: 'call_A1', content: '{"order_id":"A1","status":"shipped"}' },
      { role: 'tool', tool_call_id: 'call_B2', content: '{"order_id":"B2","status":"packed"}' },
    ]);
    const steps = modelSteps((await runtime.getRun(result.runId)).journal);
    expect(steps.map((step) => step.model)).toEqual(['openai:test-model', 'openai:test-model']);
    expect(steps[0]?.toolCalls).toEqual([
      { callId: 'c1.0', modelCallId: 'call_A1', name: 'lookup_order', arguments: { order_id: 'A1' } },
      { callId: 'c1.1', modelCallId: 'call_B2', name: 'lookup_order', arguments: { order_id: 'B2' } },
    ]);
  });

  it('gives the model an error answer, marked as an error, when a tool fails', async () => {
    const fake = await serve(ordersReply);
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Where is Z9?');

    expect(result.status).toBe('completed');
    expect(result.output).toContain('call_Z9=');
    const toolMessage = fake.requests[1]?.body.messages.find((message) => message.role === 'tool');
    // Wardrik's error answer, { error }, which @ai-sdk/openai 4.x marks as an error in its own { error } (Chat
    // Completions has no error flag on a tool message).
    expect(JSON.parse(toolMessage?.content ?? 'null')).toEqual({
      error: { error: expect.stringContaining('no order Z9') },
    });
  });

  it('passes a call to an unknown tool on to Wardrik, which answers the model with an error', async () => {
    const fake = await serve((request) =>
      request.index === 1
        ? { stream: { toolCalls: [{ id: 'call_x', name: 'lookup_ordr', arguments: { order_id: 'A1' } }] } }
        : { stream: { text: ['sorry'] } },
    );
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result.output).toBe('sorry');
    const toolMessage = fake.requests[1]?.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_x');
    expect(toolMessage?.content).toContain('lookup_ordr');
  });

  it('streams text deltas as live text-delta events, before the step ends', async () => {
    let sawDeltas: () => void = () => {};
    const deltasSeen = new Promise<void>((resolve) => {
      sawDeltas = resolve;
    });
    const fake = await serve(() => ({
      stream: {
        text: ['Hel', 'lo ', 'there'],
        // The server finishes only once the test has seen the deltas as run events.
        beforeFinish: () => deltasSeen,
      },
    }));
    const model = modelFromString(`openai-compatible:test-model@${fake.url}`, {}, { log: () => {} });
    const runtime = await openRuntime(model);
    const events: RunEvent[] = [];
    runtime.subscribe('*', (event) => {
      events.push(event);
      if (events.filter((each) => each.type === 'text-delta').length === 3) sawDeltas();
    });

    const result = await runtime.run('support', 'Hi');

    expect(result.output).toBe('Hello there');
    const types = events.map((event) => event.type);
    expect(types).toEqual(['run-started', 'text-delta', 'text-delta', 'text-delta', 'model-step', 'run-ended']);
    expect(events.flatMap((event) => (event.type === 'text-delta' ? [[event.step, event.delta]] : []))).toEqual([
      [1, 'Hel'],
      [1, 'lo '],
      [1, 'there'],
    ]);
  });

  it('turns usage into measures and, with a price, into usd per step and per run', async () => {
    const fake = await serve(ordersReply);
    const prices = { 'test-model': { input: 2, output: 8, cachedInput: 0.5 } };
    const runtime = await openRuntime(openaiModel(fake, { prices }));

    const result = await runtime.run('support', 'Where is A1?');

    // Step 1: 100 in, 20 out → (100×2 + 20×8) / 1e6. Step 2: 300 in of which 100 cached, 40 out.
    const step1 = (100 * 2 + 20 * 8) / 1e6;
    const step2 = (200 * 2 + 100 * 0.5 + 40 * 8) / 1e6;
    const steps = modelSteps((await runtime.getRun(result.runId)).journal);
    expect(steps.map((step) => step.usage)).toEqual([
      { inputTokens: 100, outputTokens: 20 },
      { inputTokens: 300, outputTokens: 40, cachedInputTokens: 100 },
    ]);
    expect(steps[0]?.measures.usd).toBeCloseTo(step1, 12);
    expect(steps[1]?.measures.usd).toBeCloseTo(step2, 12);
    expect(result.measures).toEqual({
      inputTokens: 400,
      outputTokens: 60,
      cachedInputTokens: 100,
      usd: expect.closeTo(step1 + step2, 12),
    });
  });

  it('gives no usd for a model without a price, and says so once', async () => {
    const fake = await serve(ordersReply);
    const notices: string[] = [];
    const runtime = await openRuntime(openaiModel(fake, { log: (message) => notices.push(message) }));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result.status).toBe('completed');
    expect(result.measures).toEqual({ inputTokens: 400, outputTokens: 60, cachedInputTokens: 100 });
    expect(notices).toEqual([expect.stringContaining('no price for model "test-model"')]);
    expect(notices[0]).toContain("modelFromEnvironment(process.env, { prices: { 'test-model'");
  });
});

describe('model errors', () => {
  it('retries a 429 after the Retry-After the server asked for, then succeeds', async () => {
    const fake = await serve((request) =>
      request.index === 1
        ? { status: 429, message: 'Rate limit reached for test-model', headers: { 'retry-after': '1' } }
        : { stream: { text: ['fine'] } },
    );
    // The runtime's own backoff here is 1–5 ms: a wait near 1 s can only come from Retry-After.
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('completed');
    expect(result.output).toBe('fine');
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests as [ChatRequest, ChatRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(900);
  });

  it('retries 5xx answers with backoff', async () => {
    const fake = await serve((request) =>
      request.index < 3 ? { status: 503, message: 'The server is overloaded' } : { stream: { text: ['back'] } },
    );
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Hi');

    expect(result.output).toBe('back');
    expect(fake.requests).toHaveLength(3);
  });

  it('fails the run at once, with a clear message, on a 401', async () => {
    const fake = await serve(() => ({ status: 401, message: 'Incorrect API key provided: sk-test.' }));
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^the model failed: openai:test-model: HTTP 401 \(the API key was refused\)/);
    expect(result.error).toContain('Incorrect API key provided');
    expect(fake.requests).toHaveLength(1);
  });

  it('fails the run when the answer was cut off at the output token limit (finish_reason length), running no call', async () => {
    const fake = await serve(() => ({
      stream: {
        text: ['I will look up ', 'A1 and'],
        toolCalls: [{ id: 'call_A1', name: 'lookup_order', arguments: { order_id: 'A1' } }],
        finishReason: 'length',
      },
    }));
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/cut off at its output token limit/);
    const journal = (await runtime.getRun(result.runId)).journal;
    expect(modelSteps(journal)).toEqual([expect.objectContaining({ text: 'I will look up A1 and', truncated: true })]);
    expect(journal.some(({ record }) => record.type === 'call-started')).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it('fails the run at once on a 404 (unknown model)', async () => {
    const fake = await serve(() => ({ status: 404, message: 'The model `test-model` does not exist.' }));
    const runtime = await openRuntime(openaiModel(fake));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('failed');
    expect(result.error).toContain('HTTP 404 (unknown model or endpoint)');
    expect(result.error).toContain('The model `test-model` does not exist.');
    expect(fake.requests).toHaveLength(1);
  });

  it('retries network errors (nothing listening), then fails naming the attempts', async () => {
    const fake = await serve(() => ({ status: 500, message: 'unused' }));
    const closedUrl = fake.url;
    await fake.close();
    server = undefined;
    const model = modelFromString('openai:test-model', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: closedUrl });
    const runtime = await openRuntime(model);

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^the model failed after 3 attempts: openai:test-model: could not reach http:\/\/127\.0\.0\.1/,
    );
  });
});

describe('pieces of the adapter', () => {
  it('reads Retry-After as seconds or an HTTP date, and retry-after-ms first; cut to the limit', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterFrom({ 'retry-after': '2' }, 60_000, now)).toBe(2_000);
    expect(retryAfterFrom({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:07 GMT' }, 60_000, now)).toBe(7_000);
    expect(retryAfterFrom({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, 60_000, now)).toBe(0);
    expect(retryAfterFrom({ 'retry-after-ms': '150.5', 'retry-after': '9' }, 60_000, now)).toBe(151);
    expect(retryAfterFrom({ 'retry-after': '3600' }, 60_000, now)).toBe(60_000);
    expect(retryAfterFrom({ 'retry-after': 'soon' }, 60_000, now)).toBeUndefined();
    expect(retryAfterFrom({}, 60_000, now)).toBeUndefined();
  });

  it('marks failed tool answers as errors and keeps the model call ids', () => {
    const messages = toModelMessages([
      { role: 'user', content: 'Refund A1' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [
          { callId: 'c1.0', modelCallId: 'toolu_1', name: 'refund', arguments: { order_id: 'A1' } },
          { callId: 'c1.1', name: 'notify', arguments: {} },
        ],
      },
      {
        role: 'tool',
        callId: 'c1.0',
        modelCallId: 'toolu_1',
        name: 'refund',
        content: { error: 'declined' },
        isError: true,
        labels: [],
      },
      { role: 'tool', callId: 'c1.1', name: 'notify', content: 'sent', isError: false, labels: [] },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'Refund A1' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'refund', input: { order_id: 'A1' } },
          { type: 'tool-call', toolCallId: 'c1.1', toolName: 'notify', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'toolu_1',
            toolName: 'refund',
            output: { type: 'error-json', value: { error: 'declined' } },
          },
          { type: 'tool-result', toolCallId: 'c1.1', toolName: 'notify', output: { type: 'text', value: 'sent' } },
        ],
      },
    ]);
  });
});

describe('a crash during a model step', () => {
  it('is recovered in a new process: the step is made again and the run completes', async () => {
    const fake = await serve((request) => (request.index === 1 ? { hold: true } : ordersReply(request)));
    const path = tempDbPath();
    const child = spawn(
      process.execPath,
      ['--conditions=@wardrik/source', '--import', 'tsx', childPath, path, fake.url],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    try {
      await until(() => stdout.includes('\n') && fake.requests.length === 1, 30_000);
    } catch (thrown) {
      child.kill('SIGKILL');
      throw new Error(`the child did not start its run: ${stderr}`, { cause: thrown });
    }
    const { runId } = JSON.parse(stdout) as { runId: string };

    child.kill('SIGKILL'); // while the server holds the model's answer
    expect(await exited).toBe('SIGKILL');

    const model = modelFromString(`openai-compatible:test-model@${fake.url}`, {}, { log: () => {} });
    const runtime = await openRuntime(model, path);
    const result = await runtime.wait(runId);

    expect(result.status).toBe('completed');
    expect(result.output).toContain('call_A1={"order_id":"A1","status":"shipped"}');
    expect(fake.requests).toHaveLength(3); // the held step 1, step 1 again, step 2
    expect(fake.requests[1]?.body.messages.map((message) => message.role)).toEqual(['system', 'user']);
    const steps = modelSteps((await runtime.getRun(runId)).journal);
    expect(steps.map((step) => step.step)).toEqual([1, 2]);
  });
});
