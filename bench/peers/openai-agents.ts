// OpenAI Agents JS running the peers workload (bench/peers.ts), in a process of its own:
//   node --expose-gc --import tsx bench/peers/openai-agents.ts
// An Agent with the `add` function tool and a scripted Model, run by a Runner allowed as many turns
// as the workload needs (maxTurns). Tracing is disabled: its default exporter would send traces to
// OpenAI, which this machine cannot reach and a benchmark should not.
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import { measureAndReport } from './harness.js';
import { addTool, inputFor, nextTurn, resultNumber } from './workload.js';

function firstInput(input: string | AgentInputItem[]): string {
  if (typeof input === 'string') return input;
  const first = input[0];
  if (first?.type !== 'message' || first.role !== 'user') return '';
  return typeof first.content === 'string' ? first.content : '';
}

function lastResult(input: string | AgentInputItem[]): number | undefined {
  if (typeof input === 'string') return undefined;
  const last = input[input.length - 1];
  if (last?.type !== 'function_call_result') return undefined;
  const output = last.output;
  return resultNumber(typeof output === 'string' ? output : 'text' in output ? output.text : undefined);
}

class ScriptedModel implements Model {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const turn = nextTurn(firstInput(request.input), lastResult(request.input));
    const usage = new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    return turn.type === 'call'
      ? {
          usage,
          output: [
            {
              type: 'function_call',
              callId: turn.callId,
              name: addTool.name,
              arguments: JSON.stringify(turn.arguments),
              status: 'completed',
            },
          ],
        }
      : {
          usage,
          output: [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: turn.text }],
            },
          ],
        };
  }

  // biome-ignore lint/correctness/useYield: the workload never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the peers workload does not stream');
  }
}

const add = tool({
  name: addTool.name,
  description: addTool.description,
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async (input) => addTool.run(input),
});

const agent = new Agent({ name: 'adder', instructions: 'Add.', model: new ScriptedModel(), tools: [add] });
const runner = new Runner({ tracingDisabled: true });

await measureAndReport(async () => ({
  async run(calls) {
    const result = await runner.run(agent, inputFor(calls), { maxTurns: calls + 1 });
    return String(result.finalOutput);
  },
  notes: 'in memory (no durability), tracing disabled',
}));
