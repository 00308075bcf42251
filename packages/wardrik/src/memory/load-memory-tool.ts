import { error, type Tool, tool } from '@wardrik/core';
import { builtOnFirstUse } from './built-on-first-use.js';
import { MAX_MEMORY_RESULTS } from './memory-service.js';
import { queryWords } from './words.js';

/** Options of {@link loadMemoryTool}. */
export interface LoadMemoryOptions {
  /** How many memories one call returns. Default 5. */
  readonly limit?: number;
}

/**
 * A tool that searches the memory of earlier conversations with this principal (ADK's
 * LoadMemory): `load_memory({ query })` answers the best matching things said, newest first among
 * equals. Read-only. The labels of what it finds are added to its answer: a memory made while a
 * run carried `outside` makes the run that loads it carry `outside` too.
 *
 * @example
 * ```ts
 * const support = defineAgent({ name: 'support', instructions: '…', model, tools: [orderStatus, loadMemory] })
 * ```
 */
export function loadMemoryTool(options: LoadMemoryOptions = {}): Tool<{ query: string }> {
  const limit = options.limit ?? 5;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMORY_RESULTS) {
    throw new TypeError(`loadMemoryTool: limit must be a whole number from 1 to ${MAX_MEMORY_RESULTS}, got ${limit}`);
  }
  return tool({
    name: 'load_memory',
    description:
      'Search your memory of earlier conversations with this user. Give a few words likely to appear in what was said ' +
      '(names, order numbers, topics); you get the best matching messages, each with who said it and when.',
    schema: { query: { type: 'string', required: true, doc: 'Words to look for (at most 1,000 characters).' } },
    annotations: { readOnly: true },
    run: async ({ query }, context) => {
      try {
        queryWords(query);
      } catch (cause) {
        return error((cause as Error).message, { code: 'invalid_arguments' });
      }
      const memories = await context.memory.search(query, { limit });
      return {
        memories: memories.map((memory) => ({
          text: memory.text,
          author: memory.role,
          at: new Date(memory.at).toISOString(),
          ...(memory.sessionId === undefined ? {} : { session: memory.sessionId }),
        })),
      };
    },
  });
}

/**
 * {@link loadMemoryTool} with its defaults: `load_memory`, 5 memories a call. Built (its schema
 * compiled, once) the first time it is read, e.g. by `defineAgent`, not when Wardrik is imported.
 */
export const loadMemory: Tool<{ query: string }> = builtOnFirstUse(() => loadMemoryTool());
