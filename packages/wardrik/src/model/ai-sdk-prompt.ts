import type { AssistantContent, JSONValue, jsonSchema, ModelMessage, Tool, ToolResultPart, ToolSet } from 'ai';
import { aiSdk } from './ai-sdk.js';
import type { Message, ModelToolDefinition } from './model.js';

/**
 * Wardrik's conversation as AI SDK messages: user text; assistant text and tool calls; tool
 * results (consecutive ones in one tool message), errors marked as such. Calls keep the id the
 * model gave them (`modelCallId`), so providers can match results to calls.
 *
 * @example
 * ```ts
 * const messages = toModelMessages(request.messages)
 * ```
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const converted: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      converted.push({ role: 'user', content: message.content });
    } else if (message.role === 'assistant') {
      const content: Exclude<AssistantContent, string> = [];
      if (message.text !== '') content.push({ type: 'text', text: message.text });
      for (const call of message.toolCalls) {
        content.push({
          type: 'tool-call',
          toolCallId: call.modelCallId ?? call.callId,
          toolName: call.name,
          input: call.arguments ?? {},
        });
      }
      converted.push({ role: 'assistant', content });
    } else {
      const part: ToolResultPart = {
        type: 'tool-result',
        toolCallId: message.modelCallId ?? message.callId,
        toolName: message.name,
        output: toolOutput(message.content, message.isError),
      };
      const last = converted.at(-1);
      if (last?.role === 'tool') last.content.push(part);
      else converted.push({ role: 'tool', content: [part] });
    }
  }
  return converted;
}

function toolOutput(content: unknown, isError: boolean): ToolResultPart['output'] {
  if (typeof content === 'string') return { type: isError ? 'error-text' : 'text', value: content };
  return { type: isError ? 'error-json' : 'json', value: toJsonValue(content) };
}

/** A value as plain JSON (dates become strings, undefined fields go), as the model will read it. */
function toJsonValue(value: unknown): JSONValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JSONValue);
}

/**
 * Wardrik's tool definitions as an AI SDK tool set, without `execute`: the model proposes calls,
 * Wardrik runs them. The JSON Schema is passed through as it is, unvalidated here (Wardrik checks
 * arguments itself and tells the model what was wrong).
 */
export function toToolSet(definitions: readonly ModelToolDefinition[]): ToolSet | undefined {
  if (definitions.length === 0) return undefined;
  const { jsonSchema: toSchema, tool } = aiSdk();
  const tools: Record<string, Tool> = {};
  for (const definition of definitions) {
    tools[definition.name] = tool({
      description: definition.description,
      inputSchema: toSchema(definition.inputSchema as Parameters<typeof jsonSchema>[0]),
    });
  }
  return tools;
}
