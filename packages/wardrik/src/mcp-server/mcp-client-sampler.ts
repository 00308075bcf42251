import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CreateMessageRequest, CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeReason } from '@wardrik/core';
import type { ClientSampler } from './client-sampling.js';
import type { Extra } from './request-scope.js';

// Apart from client-sampling.ts (the registry the gateway's model holds, loaded with `wardrik`):
// this one needs the MCP SDK, loaded only with the MCP endpoint.
/**
 * Asks the MCP client that sent a `tools/call` (on that request's stream) to sample:
 * `sampling/createMessage` with the call's text messages, system prompt and `maxTokens`, no
 * tools. Refuses at once when the client did not declare `sampling`; the client's refusal or an
 * answer that is not text rejects, naming the tool. MCP reports no usage: the answer is measured
 * as nothing (the client's model, not Wardrik, paid for it).
 */
export function mcpClientSampler(
  server: Server,
  extra: Extra,
  options: { readonly tool: string; readonly timeoutMs: number },
): ClientSampler {
  return async (request, signal) => {
    if (server.getClientCapabilities()?.sampling === undefined) {
      throw new Error(
        `sample: the MCP client that called ${options.tool} did not declare the sampling capability, so its model can't be asked`,
      );
    }
    const params: CreateMessageRequest['params'] = {
      messages: request.messages.map((message) => ({
        role: message.role,
        content: { type: 'text', text: message.text },
      })),
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
      maxTokens: request.maxTokens,
    };
    let result: Awaited<ReturnType<typeof extra.sendRequest<typeof CreateMessageResultSchema>>>;
    try {
      result = await extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema, {
        signal: AbortSignal.any([signal, extra.signal]),
        timeout: options.timeoutMs,
      });
    } catch (cause) {
      throw new Error(`sample: the MCP client that called ${options.tool} did not sample: ${describeReason(cause)}`);
    }
    const blocks = Array.isArray(result.content) ? result.content : [result.content];
    const texts = blocks.map((block: { type: string; text?: unknown }) => {
      if (block.type !== 'text' || typeof block.text !== 'string') {
        throw new Error(
          `sample: the MCP client that called ${options.tool} answered with ${block.type} content; only text can be sampled`,
        );
      }
      return block.text;
    });
    return {
      result: {
        text: texts.join('\n'),
        model: result.model,
        stopReason: result.stopReason === 'maxTokens' ? 'maxTokens' : 'endTurn',
      },
      measures: {},
    };
  };
}
