/*
 * What an MCP server asks Wardrik during a tool call, through mcpToolset: elicitation (form and
 * url mode) answered through the call's `context.requestInput`, sampling through `context.sample`
 * when the toolset allows it, roots when configured. Against a real MCP SDK server
 * (fixtures/mcp-toolset-asking-server.ts) over stdio (a child process) and over Streamable HTTP
 * (in this process). The person and the model are functions given to the call's context, as the
 * runtime gives its own.
 */
import { fileURLToPath } from 'node:url';
import {
  type Answer,
  call,
  createContext,
  type InputQuestion,
  type InputReply,
  type SampleRequest,
  type SampleResult,
  StateView,
  type Tool,
  type ToolContext,
} from '@wardrik/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpToolset, mcpToolset } from '../src/toolsets/mcp-toolset.js';
import type { McpToolsetOptions } from '../src/toolsets/mcp-toolset-options.js';
import { lateOutcomes, PERSON_FORM, serveHttp } from './fixtures/mcp-toolset-asking-server.js';
import { until } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = fileURLToPath(new URL('./fixtures/mcp-toolset-asking-server.ts', import.meta.url));

type Ask = (question: InputQuestion, options?: { signal?: AbortSignal }) => Promise<InputReply>;
type Sample = (request: SampleRequest, options?: { signal?: AbortSignal }) => Promise<SampleResult>;

let http: { url: string; close: () => Promise<void> };
beforeAll(async () => {
  http = await serveHttp();
});
afterAll(async () => {
  await http?.close();
});

const transports: Array<[string, (extra: Partial<McpToolsetOptions>) => McpToolsetOptions]> = [
  [
    'stdio',
    (extra) =>
      ({
        name: 'asking',
        command: process.execPath,
        args: ['--conditions=@wardrik/source', '--import', 'tsx', SERVER, 'stdio'],
        cwd: ROOT,
        ...extra,
      }) as McpToolsetOptions,
  ],
  ['Streamable HTTP', (extra) => ({ name: 'asking', url: http.url, ...extra }) as McpToolsetOptions],
];

function toolsetContext() {
  const signal = new AbortController().signal;
  return { runId: 'r1', agentName: 'helper', principal: 'carol', step: 1, labels: [], state: new StateView(), signal };
}

let calls = 0;
function callContext(options: { requestInput?: Ask; sample?: Sample; signal?: AbortSignal } = {}): ToolContext {
  calls += 1;
  return createContext({
    runId: 'r1',
    agent: 'helper',
    principal: 'carol',
    callId: `c${calls}`,
    idempotencyKey: `r1:c${calls}`,
    ...options,
  });
}

/** A person who answers `reply` and notes what they were asked, and with which signal. */
function person(reply: InputReply) {
  const asked: Array<{ question: InputQuestion; signal: AbortSignal | undefined }> = [];
  const requestInput: Ask = async (question, options) => {
    asked.push({ question, signal: options?.signal });
    return reply;
  };
  return { asked, requestInput };
}

async function callTool(
  tools: readonly Tool<never>[],
  name: string,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<Answer> {
  return call(tools, { id: context.callId, name: `asking__${name}`, arguments: args }, context);
}

/** The JSON a tool answered with (what its server's request got back). */
function answered(answer: Answer): unknown {
  if (answer.type !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(answer)}`);
  return JSON.parse(answer.value as string);
}

function refusal(answer: Answer): string {
  if (answer.type !== 'error') throw new Error(`expected an error, got ${JSON.stringify(answer)}`);
  return answer.reason;
}

describe.each(transports)('a server asking during a call, over %s', (_transport, options) => {
  let toolset: McpToolset;
  let tools: readonly Tool<never>[];
  beforeAll(async () => {
    toolset = mcpToolset(options({}));
    tools = await toolset.tools(toolsetContext());
  });
  afterAll(async () => {
    await toolset?.close();
  });

  it('form mode: the person is asked with the server’s schema; accepted content gets the schema’s defaults', async () => {
    const { asked, requestInput } = person({ action: 'accept', content: { name: 'Ada', age: 36 } });
    const answer = await callTool(tools, 'ask_form', { message: 'Who are you?' }, callContext({ requestInput }));
    expect(answered(answer)).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36, color: 'green', subscribe: false },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.question).toEqual({ mode: 'form', message: 'Who are you?', schema: PERSON_FORM });
    expect(asked[0]?.signal?.aborted).toBe(false);
  });

  it('form mode: what the person gave is kept over a default', async () => {
    const { requestInput } = person({ action: 'accept', content: { name: 'Ada', color: 'red', subscribe: true } });
    const answer = await callTool(tools, 'ask_form', { message: 'Who?' }, callContext({ requestInput }));
    expect(answered(answer)).toEqual({ action: 'accept', content: { name: 'Ada', color: 'red', subscribe: true } });
  });

  it('decline and cancel reach the server as such, without content', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const { requestInput } = person({ action });
      const answer = await callTool(tools, 'ask_form', { message: 'Who?' }, callContext({ requestInput }));
      expect(answered(answer)).toEqual({ action });
    }
  });

  it('content that does not fit the schema: the server gets an error naming the field, not the content', async () => {
    const { requestInput } = person({ action: 'accept', content: { name: 'Ada', age: 'secret-forty' } });
    const reason = refusal(await callTool(tools, 'ask_form', { message: 'Who?' }, callContext({ requestInput })));
    expect(reason).toMatch(/the answer does not fit the requested schema: field "age" expected integer/);
    expect(reason).not.toContain('secret-forty');

    const missing = person({ action: 'accept', content: { age: 3 } });
    const why = refusal(
      await callTool(tools, 'ask_form', { message: 'Who?' }, callContext({ requestInput: missing.requestInput })),
    );
    expect(why).toMatch(/field "name" is required/);
  });

  it('url mode: the person is shown the URL and the elicitation id; accept goes back without content', async () => {
    const { asked, requestInput } = person({ action: 'accept' });
    const answer = await callTool(tools, 'ask_url', {}, callContext({ requestInput }));
    expect(answered(answer)).toEqual({ action: 'accept' });
    expect(asked[0]?.question).toEqual({
      mode: 'url',
      message: 'Pay the invoice',
      url: 'https://pay.example.com/invoice/7',
      elicitationId: 'pay-7',
    });
  });

  it('a call outside a runtime (no requestInput): the server is told why nobody answers', async () => {
    const reason = refusal(await callTool(tools, 'ask_form', { message: 'Who?' }, callContext()));
    expect(reason).toMatch(
      /elicitation\/create was not answered: requestInput: this call runs outside a Wardrik runtime/,
    );
  });

  it('two calls in flight both asking: each is refused, saying Wardrik cannot tell which call asks', async () => {
    const first = person({ action: 'accept', content: {} });
    const second = person({ action: 'accept', content: {} });
    const [one, two] = await Promise.all([
      callTool(tools, 'ask_together', {}, callContext({ requestInput: first.requestInput })),
      callTool(tools, 'ask_together', {}, callContext({ requestInput: second.requestInput })),
    ]);
    for (const answer of [one, two]) {
      expect(refusal(answer)).toMatch(/Wardrik cannot tell which call asks: 2 calls are in flight on this connection/);
    }
    expect(first.asked).toEqual([]);
    expect(second.asked).toEqual([]);
  });

  it('the call is cancelled while the person is asked: requestInput’s signal aborts, the call answers cancelled', async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const requestInput: Ask = (_question, options) =>
      new Promise((_resolve, reject) => {
        const signal = options?.signal;
        if (signal === undefined) return reject(new Error('no signal'));
        signals.push(signal);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const answering = callTool(
      tools,
      'ask_form',
      { message: 'Who?' },
      callContext({ requestInput, signal: controller.signal }),
    );
    await until(() => signals.length === 1);
    expect(signals[0]?.aborted).toBe(false);
    controller.abort(new Error('the run was cancelled'));
    expect(await answering).toMatchObject({ type: 'error', code: 'cancelled' });
    expect(signals[0]?.aborted).toBe(true);
  });

  it('sampling not allowed (the default): the server’s createMessage is refused, no model asked', async () => {
    let sampled = 0;
    const sample: Sample = async () => {
      sampled += 1;
      return { text: 'no', model: 'm', stopReason: 'endTurn' };
    };
    const reason = refusal(await callTool(tools, 'sample', { prompt: 'Hi' }, callContext({ sample })));
    expect(reason).toMatch(/^refused: MCP error -32601: Method not found/);
    expect(sampled).toBe(0);
  });

  it('roots not configured: the server’s roots/list is refused', async () => {
    const reason = refusal(await callTool(tools, 'roots', {}, callContext()));
    expect(reason).toMatch(/^refused: MCP error -32601: Method not found/);
  });
});

describe.each(transports)('a toolset offering sampling and roots, over %s', (_transport, options) => {
  let toolset: McpToolset;
  let tools: readonly Tool<never>[];
  beforeAll(async () => {
    toolset = mcpToolset(
      options({
        sampling: true,
        roots: [{ uri: 'file:///srv/shared', name: 'Shared files' }, { uri: 'file:///tmp/work' }],
      }),
    );
    tools = await toolset.tools(toolsetContext());
  });
  afterAll(async () => {
    await toolset?.close();
  });

  it('sampling: the call’s context.sample answers with the run’s model, text only', async () => {
    const asked: SampleRequest[] = [];
    const sample: Sample = async (request) => {
      asked.push(request);
      return { text: 'Hello', model: 'scripted-1', stopReason: 'endTurn' };
    };
    const answer = await callTool(tools, 'sample', { prompt: 'Greet me' }, callContext({ sample }));
    expect(answered(answer)).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'Hello' },
      model: 'scripted-1',
      stopReason: 'endTurn',
    });
    expect(asked).toEqual([
      { messages: [{ role: 'user', text: 'Greet me' }], systemPrompt: 'Answer in one word.', maxTokens: 20 },
    ]);
  });

  it('sampling with image content: a clear error, no model asked', async () => {
    let sampled = 0;
    const sample: Sample = async () => {
      sampled += 1;
      return { text: 'x', model: 'm', stopReason: 'endTurn' };
    };
    const reason = refusal(await callTool(tools, 'sample_image', {}, callContext({ sample })));
    expect(reason).toMatch(/messages\[0\] has image content; Wardrik samples text only/);
    expect(sampled).toBe(0);
  });

  it('roots: the configured roots', async () => {
    const answer = await callTool(tools, 'roots', {}, callContext());
    expect(answered(answer)).toEqual({
      roots: [{ uri: 'file:///srv/shared', name: 'Shared files' }, { uri: 'file:///tmp/work' }],
    });
  });
});

describe('a request once no call is in flight (Streamable HTTP, the server in this process)', () => {
  it('is refused, saying no call is in flight; nobody is asked', async () => {
    const toolset = mcpToolset({ name: 'asking', url: http.url });
    try {
      const tools = await toolset.tools(toolsetContext());
      const { asked, requestInput } = person({ action: 'accept', content: {} });
      expect(await callTool(tools, 'ask_later', {}, callContext({ requestInput }))).toMatchObject({ type: 'ok' });
      await until(() => lateOutcomes.length > 0);
      expect(lateOutcomes).toEqual([
        expect.stringMatching(
          /^refused: .*Wardrik answers elicitation\/create only during a tools\/call, and no call is in flight on this connection$/,
        ),
      ]);
      expect(asked).toEqual([]);
    } finally {
      await toolset.close();
    }
  });
});

describe('the call’s timeout while a person is asked (Streamable HTTP)', () => {
  it('stops counting: a person slower than callTimeoutMs still answers the call', async () => {
    const toolset = mcpToolset({ name: 'asking', url: http.url, callTimeoutMs: 1_000 });
    try {
      const tools = await toolset.tools(toolsetContext());
      const requestInput: Ask = async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return { action: 'accept', content: { name: 'Ada' } };
      };
      const answer = await callTool(tools, 'ask_form', { message: 'Who?' }, callContext({ requestInput }));
      expect(answered(answer)).toEqual({
        action: 'accept',
        content: { name: 'Ada', color: 'green', subscribe: false },
      });
    } finally {
      await toolset.close();
    }
  });
});

describe('options', () => {
  it.each([
    [
      { sampling: 'yes' },
      /mcpToolset x: sampling must be a boolean \(true lets the server ask the agent's model\), got string/,
    ],
    [{ roots: 'file:///srv' }, /mcpToolset x: roots must be an array such as/],
    [
      { roots: [{ uri: '/srv/shared' }] },
      /roots\[0\]\.uri must be a string starting with file:\/\/, got "\/srv\/shared"/,
    ],
    [{ roots: [{ uri: 'file:///a', name: 7 }] }, /roots\[0\]\.name must be a string, got integer/],
    [{ roots: [{ uri: 'file:///a', path: '/a' }] }, /roots\[0\]\.path is not an option \(expected uri, name\)/],
    [{ roots: [null] }, /roots\[0\] must be an object such as/],
  ])('%j is refused, naming the field', (extra, message) => {
    expect(() => mcpToolset({ name: 'x', command: 'node', ...extra } as McpToolsetOptions)).toThrow(message);
  });
});
