import {
  type CreateMessageRequest,
  type CreateMessageResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { SampleRequest, SampleResult } from '@wardrik/core';
import type { AskingCall } from './mcp-elicitation.js';

/**
 * Answers a server's `sampling/createMessage` through the asking call's `context.sample` (the
 * run's model): text messages only, no tools. Throws an `McpError` (the server's answer) for
 * content that is not text (image, audio, tool use), for tools, and when the model was not asked
 * (no runtime, the call stopped).
 *
 * @example
 * ```ts
 * const result = await answerSampling(request.params, { call, signal })
 * ```
 */
export async function answerSampling(
  params: CreateMessageRequest['params'],
  asking: AskingCall,
): Promise<CreateMessageResult> {
  if ((params as { task?: unknown }).task !== undefined) {
    throw new McpError(
      ErrorCode.InvalidParams,
      'Wardrik does not answer task-augmented sampling/createMessage: send it without params.task',
    );
  }
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    throw new McpError(
      ErrorCode.InvalidParams,
      'sampling/createMessage: Wardrik samples text only, without tools (it declares no sampling.tools): send it without tools and toolChoice',
    );
  }
  const messages = params.messages.map((message, index) => {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const texts = blocks.map((block) => {
      if (block.type !== 'text') {
        throw new McpError(
          ErrorCode.InvalidParams,
          `sampling/createMessage: messages[${index}] has ${block.type} content; Wardrik samples text only`,
        );
      }
      return block.text;
    });
    return { role: message.role, text: texts.join('\n') };
  });
  const request: SampleRequest = {
    messages,
    ...(params.systemPrompt === undefined ? {} : { systemPrompt: params.systemPrompt }),
    maxTokens: params.maxTokens,
  };
  let result: SampleResult;
  try {
    result = await asking.call.context.sample(request, { signal: asking.signal });
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new McpError(ErrorCode.InternalError, `sampling/createMessage was not answered: ${why}`);
  }
  if (typeof result?.text !== 'string' || typeof result.model !== 'string') {
    throw new McpError(ErrorCode.InternalError, 'sampling/createMessage: the model gave no text');
  }
  return {
    role: 'assistant',
    content: { type: 'text', text: result.text },
    model: result.model,
    stopReason: result.stopReason,
  };
}
