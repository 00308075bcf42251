// AI SDK 6 running the peers workload (bench/peers.ts), in a process of its own:
//   node --expose-gc --import tsx bench/peers/ai-sdk.ts
// generateText with the `add` tool and a scripted LanguageModelV3 (written against the spec, like
// `ai/test`'s MockLanguageModelV3 but without its record of every call, which would grow with the
// run); the loop is allowed as many steps as the workload needs (stopWhen: stepCountIs).
import type { LanguageModelV3, LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { measureAndReport } from './harness.js';
import { addTool, inputFor, nextTurn, resultNumber } from './workload.js';

const usage: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function lastResult(prompt: LanguageModelV3Prompt): number | undefined {
  const last = prompt[prompt.length - 1];
  if (last?.role !== 'tool') return undefined;
  const part = last.content[0];
  if (part?.type !== 'tool-result') return undefined;
  return resultNumber(part.output.type === 'json' || part.output.type === 'text' ? part.output.value : undefined);
}

function firstInput(prompt: LanguageModelV3Prompt): string {
  const user = prompt.find((message) => message.role === 'user');
  const part = user?.content[0];
  return part?.type === 'text' ? part.text : '';
}

const model: LanguageModelV3 = {
  specificationVersion: 'v3',
  provider: 'scripted',
  modelId: 'scripted',
  supportedUrls: {},
  async doGenerate(options): Promise<LanguageModelV3GenerateResult> {
    const turn = nextTurn(firstInput(options.prompt), lastResult(options.prompt));
    return turn.type === 'call'
      ? {
          content: [
            {
              type: 'tool-call',
              toolCallId: turn.callId,
              toolName: addTool.name,
              input: JSON.stringify(turn.arguments),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        }
      : {
          content: [{ type: 'text', text: turn.text }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
  },
  doStream() {
    throw new Error('the peers workload does not stream');
  },
};

const tools = {
  add: tool({
    description: addTool.description,
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async (input) => addTool.run(input),
  }),
};

await measureAndReport(async () => ({
  async run(calls) {
    const result = await generateText({ model, tools, prompt: inputFor(calls), stopWhen: stepCountIs(calls + 1) });
    return result.text;
  },
  notes: 'in memory (no durability)',
}));
