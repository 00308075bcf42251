/*
 * The AI SDK adapter end to end against Anthropic: a local server speaking the real Messages API
 * wire format (SSE events, `tool_use` blocks with streamed JSON input, usage with prompt-cache
 * reads and writes, Anthropic's error bodies), reached through the real `@ai-sdk/anthropic`
 * provider from `modelFromString('anthropic:…')`, and driven by Wardrik's real runtime on a SQLite
 * file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { describeCost } from '../src/cli/describe.js';
import { type Model, modelFromString, type RunEvent, type Wardrik } from '../src/index.js';
import {
  type FakeAnthropic,
  type MessagesRequest,
  type Reply,
  type RequestBlock,
  startFakeAnthropic,
} from './ai-sdk/fake-anthropic.js';
import { INSTRUCTIONS, supportAgent } from './ai-sdk/orders.js';
import { modelSteps, openWardrik, tempDbPath } from './helpers.js';

let server: FakeAnthropic | undefined;
let wardrik: Wardrik | undefined;
afterEach(async () => {
  await wardrik?.close();
  wardrik = undefined;
  await server?.close();
  server = undefined;
});

async function serve(handler: (request: MessagesRequest) => Reply | Promise<Reply>): Promise<FakeAnthropic> {
  server = await startFakeAnthropic(handler);
  return server;
}

/**
 * `anthropic:test-model` through `@ai-sdk/anthropic`, pointed at the local server. An explicit
 * `maxOutputTokens`, since the provider knows no limit for an unknown model id (and warns).
 */
function anthropicModel(fake: FakeAnthropic, options: Parameters<typeof modelFromString>[2] = {}): Model {
  return modelFromString(
    'anthropic:test-model',
    { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fake.url },
    { log: () => {}, maxOutputTokens: 1024, ...options },
  );
}

async function openRuntime(model: Model): Promise<Wardrik> {
  wardrik = await openWardrik(tempDbPath(), [supportAgent(model)]);
  return wardrik;
}

function blocks(request: MessagesRequest | undefined): RequestBlock[] {
  return (request?.body.messages ?? []).flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content,
  );
}

/** Step 1 wrote 50 tokens to the prompt cache; step 2 read 150 from it and wrote 30 more. */
const STEP1_USAGE = { input: 100, cacheWrite: 50, output: 20 };
const STEP2_USAGE = { input: 60, cacheRead: 150, cacheWrite: 30, output: 40 };

/**
 * The Anthropic counterpart of `ordersReply`. Step 1 (no `tool_result` yet): refuses a request
 * without the `lookup_order` tool, then asks for it on every order id in the user's message.
 * Step 2: answers from the results, which must name the `tool_use` ids of step 1, in order.
 */
function ordersReply(request: MessagesRequest): Reply {
  if (!request.body.tools?.some((tool) => tool.name === 'lookup_order')) {
    return { status: 400, message: 'tools: the request carries no lookup_order tool' };
  }
  const all = blocks(request);
  const results = all.flatMap((block) => (block.type === 'tool_result' ? [block] : []));
  if (results.length === 0) {
    const user = all.find((block) => block.type === 'text')?.text ?? '';
    const ids = user.match(/\b[A-Z]\d\b/g) ?? [];
    return {
      stream: {
        text: ['Let me ', 'look.'],
        toolUses: ids.map((id) => ({ id: `toolu_${id}`, name: 'lookup_order', input: { order_id: id } })),
        usage: STEP1_USAGE,
      },
    };
  }
  const asked = all.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
  const answered = results.map((result) => result.tool_use_id);
  if (asked.join() !== answered.join()) {
    return { status: 400, message: `tool_result ids ${answered.join()} do not match tool_use ids ${asked.join()}` };
  }
  const lines = results.map((result) => `${result.tool_use_id}${result.is_error ? '!' : ''}=${result.content}`);
  return { stream: { text: ['Here ', 'you are: ', lines.join('; ')], usage: STEP2_USAGE } };
}

describe('aiSdkModel against a local Anthropic Messages API server', () => {
  it('runs several steps with tool calls: the server gets the tools, then the results bound to the tool_use ids', async () => {
    const fake = await serve(ordersReply);
    const runtime = await openRuntime(anthropicModel(fake));

    const result = await runtime.run('support', 'Where are A1 and B2?');

    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'Here you are: toolu_A1={"order_id":"A1","status":"shipped"}; toolu_B2={"order_id":"B2","status":"packed"}',
    );
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests as [MessagesRequest, MessagesRequest];
    expect(first.headers['x-api-key']).toBe('sk-ant-test');
    expect(first.headers['anthropic-version']).toBe('2023-06-01');
    expect(first.headers.authorization).toBeUndefined();
    expect(first.body).toMatchObject({ model: 'test-model', stream: true, max_tokens: 1024 });
    expect(first.body.system).toEqual([{ type: 'text', text: INSTRUCTIONS }]);
    expect(first.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Where are A1 and B2?' }] }]);
    expect(first.body.tools).toEqual([
      expect.objectContaining({
        name: 'lookup_order',
        description: 'Look an order up by its id.',
        input_schema: expect.objectContaining({
          type: 'object',
          properties: { order_id: expect.objectContaining({ type: 'string' }) },
          required: ['order_id'],
        }),
      }),
    ]);
    // Step 2 replays step 1's text and tool_use blocks under Anthropic's ids, then one user
    // message with a tool_result per call.
    expect(second.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_A1', name: 'lookup_order', input: { order_id: 'A1' } },
          { type: 'tool_use', id: 'toolu_B2', name: 'lookup_order', input: { order_id: 'B2' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_A1', content: '{"order_id":"A1","status":"shipped"}' },
          { type: 'tool_result', tool_use_id: 'toolu_B2', content: '{"order_id":"B2","status":"packed"}' },
        ],
      },
    ]);
    const steps = modelSteps((await runtime.getRun(result.runId)).journal);
    expect(steps.map((step) => step.model)).toEqual(['anthropic:test-model', 'anthropic:test-model']);
    expect(steps[0]?.text).toBe('Let me look.');
    expect(steps[0]?.toolCalls).toEqual([
      { callId: 'c1.0', modelCallId: 'toolu_A1', name: 'lookup_order', arguments: { order_id: 'A1' } },
      { callId: 'c1.1', modelCallId: 'toolu_B2', name: 'lookup_order', arguments: { order_id: 'B2' } },
    ]);
  });

  it('sends a failing tool’s answer as a tool_result marked is_error', async () => {
    const fake = await serve(ordersReply);
    const runtime = await openRuntime(anthropicModel(fake));

    const result = await runtime.run('support', 'Where are A1 and Z9?');

    expect(result.status).toBe('completed');
    const results = blocks(fake.requests[1]).filter((block) => block.type === 'tool_result');
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_A1', content: '{"order_id":"A1","status":"shipped"}' },
      { type: 'tool_result', tool_use_id: 'toolu_Z9', content: expect.any(String), is_error: true },
    ]);
    const failed = results[1] as { content: string };
    expect(JSON.parse(failed.content)).toEqual({ error: expect.stringContaining('no order Z9') });
    expect(result.output).toContain('toolu_Z9!=');
  });

  it('streams text_delta events as live text-delta run events, before the step ends', async () => {
    let sawDeltas: () => void = () => {};
    const deltasSeen = new Promise<void>((resolve) => {
      sawDeltas = resolve;
    });
    const fake = await serve(() => ({
      stream: {
        text: ['Hel', 'lo ', 'there'],
        // The server ends the text block and the message only once the test has seen the deltas.
        beforeFinish: () => deltasSeen,
      },
    }));
    const runtime = await openRuntime(anthropicModel(fake));
    const events: RunEvent[] = [];
    runtime.subscribe('*', (event) => {
      events.push(event);
      if (events.filter((each) => each.type === 'text-delta').length === 3) sawDeltas();
    });

    const result = await runtime.run('support', 'Hi');

    expect(result.output).toBe('Hello there');
    expect(events.map((event) => event.type)).toEqual([
      'run-started',
      'text-delta',
      'text-delta',
      'text-delta',
      'model-step',
      'run-ended',
    ]);
    expect(events.flatMap((event) => (event.type === 'text-delta' ? [[event.step, event.delta]] : []))).toEqual([
      [1, 'Hel'],
      [1, 'lo '],
      [1, 'there'],
    ]);
  });

  it('counts cache reads and writes as input tokens, measures each, and prices each at its own rate', async () => {
    const fake = await serve(ordersReply);
    const prices = { 'test-model': { input: 3, output: 15, cachedInput: 0.3, cacheWriteInput: 3.75 } };
    const runtime = await openRuntime(anthropicModel(fake, { prices }));

    const result = await runtime.run('support', 'Where is A1?');

    // Anthropic's input_tokens leave out the cache reads and writes; Wardrik's inputTokens count them.
    // Step 1: 100 plain + 50 written, 20 out. Step 2: 60 plain + 150 read + 30 written, 40 out.
    const step1 = (100 * 3 + 50 * 3.75 + 20 * 15) / 1e6;
    const step2 = (60 * 3 + 150 * 0.3 + 30 * 3.75 + 40 * 15) / 1e6;
    const steps = modelSteps((await runtime.getRun(result.runId)).journal);
    expect(steps.map((step) => step.usage)).toEqual([
      { inputTokens: 150, outputTokens: 20, cacheWriteInputTokens: 50 },
      { inputTokens: 240, outputTokens: 40, cachedInputTokens: 150, cacheWriteInputTokens: 30 },
    ]);
    expect(steps.map((step) => ({ ...step.measures, usd: undefined }))).toEqual([
      { inputTokens: 150, outputTokens: 20, cacheWriteInputTokens: 50, usd: undefined },
      { inputTokens: 240, outputTokens: 40, cachedInputTokens: 150, cacheWriteInputTokens: 30, usd: undefined },
    ]);
    expect(steps[0]?.measures.usd).toBeCloseTo(step1, 12);
    expect(steps[1]?.measures.usd).toBeCloseTo(step2, 12);
    expect(result.measures).toEqual({
      inputTokens: 390,
      outputTokens: 60,
      cachedInputTokens: 150,
      cacheWriteInputTokens: 80,
      usd: expect.closeTo(step1 + step2, 12),
    });
    // As `wardrik run` and `wardrik runs` show it.
    expect(describeCost(result.measures)).toMatch(
      /^0\.\d+ usd, 450 tokens \(390 in, 60 out, 150 cached, 80 written to the cache\)$/,
    );
  });
});

describe('Anthropic errors', () => {
  it('retries a 429 rate_limit_error after the retry-after the server asked for, then succeeds', async () => {
    const fake = await serve((request) =>
      request.index === 1
        ? {
            status: 429,
            message: 'Number of request tokens has exceeded your rate limit',
            headers: { 'retry-after': '1' },
          }
        : { stream: { text: ['fine'] } },
    );
    // The runtime's own backoff here is 1–5 ms: a wait near 1 s can only come from retry-after.
    const runtime = await openRuntime(anthropicModel(fake));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('completed');
    expect(result.output).toBe('fine');
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests as [MessagesRequest, MessagesRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(900);
    expect(second.body).toEqual(first.body);
  });

  it('retries an overloaded_error event in the middle of a stream', async () => {
    const fake = await serve((request) =>
      request.index === 1
        ? { stream: { error: { type: 'overloaded_error', message: 'Overloaded' } } }
        : { stream: { text: ['back'] } },
    );
    const runtime = await openRuntime(anthropicModel(fake));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('completed');
    expect(result.output).toBe('back');
    expect(fake.requests).toHaveLength(2);
    expect(modelSteps((await runtime.getRun(result.runId)).journal)).toHaveLength(1);
  });

  it('retries a stream that stops after message_delta without message_stop: the provider reports no finish', async () => {
    const fake = await serve((request) =>
      request.index === 1
        ? { stream: { text: ['Your order ', 'A1 was'], cut: 'end', cutAfterMessageDelta: true } }
        : { stream: { text: ['All good.'] } },
    );
    const runtime = await openRuntime(anthropicModel(fake));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result).toMatchObject({ status: 'completed', output: 'All good.' });
    expect(fake.requests).toHaveLength(2);
    expect(modelSteps((await runtime.getRun(result.runId)).journal).map((step) => step.text)).toEqual(['All good.']);
  });

  it('fails the run at once on a 401 authentication_error, naming the model and the reason', async () => {
    const fake = await serve(() => ({ status: 401, message: 'invalid x-api-key' }));
    const runtime = await openRuntime(anthropicModel(fake));

    const result = await runtime.run('support', 'Hi');

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^the model failed: anthropic:test-model: HTTP 401 \(the API key was refused\)/);
    expect(result.error).toContain(`${fake.url}/messages`);
    expect(result.error).toContain('invalid x-api-key');
    expect(result.error).not.toContain('sk-ant-test');
    expect(fake.requests).toHaveLength(1);
  });

  it('fails the run when the answer stopped at max_tokens, instead of taking the cut-off text as final', async () => {
    const fake = await serve(() => ({
      stream: { text: ['Your order A1 ', 'was shipped on'], stopReason: 'max_tokens' },
    }));
    const runtime = await openRuntime(anthropicModel(fake));

    const result = await runtime.run('support', 'Where is A1?');

    expect(result.status).toBe('failed');
    expect(result.output).toBeUndefined();
    expect(result.error).toMatch(/cut off at its output token limit/);
    expect(modelSteps((await runtime.getRun(result.runId)).journal)).toEqual([
      expect.objectContaining({ text: 'Your order A1 was shipped on', truncated: true }),
    ]);
  });
});
