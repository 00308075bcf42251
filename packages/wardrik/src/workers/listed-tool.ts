import { fromMcpTool, isValidToolName, type McpTool, ToolDefinitionError } from '@wardrik/core';

/** JSON Schema dialects older than 2020-12 whose `$schema` Wardrik drops (the keywords tools use mean the same). */
const olderDialects = [
  'http://json-schema.org/draft-07/schema',
  'https://json-schema.org/draft-07/schema',
  'https://json-schema.org/draft/2019-09/schema',
];

/** Checks one item of a worker's `tools/list`: a valid name and an input schema that compiles. */
export function checkListedTool(item: unknown): { ok: true; tool: McpTool } | { ok: false; reason: string } {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return { ok: false, reason: 'not an object' };
  const listed = item as McpTool;
  if (!isValidToolName(listed.name)) {
    return {
      ok: false,
      reason: `invalid name ${JSON.stringify(listed.name)}: use 1–128 characters of A–Z a–z 0–9 _ - .`,
    };
  }
  if (typeof listed.inputSchema !== 'object' || listed.inputSchema === null) {
    return { ok: false, reason: 'inputSchema is required and must be an object' };
  }
  const { $schema, ...rest } = listed.inputSchema as Record<string, unknown>;
  const dropSchema = typeof $schema === 'string' && olderDialects.some((dialect) => $schema.startsWith(dialect));
  const tool: McpTool = { ...listed, inputSchema: dropSchema ? rest : listed.inputSchema };
  try {
    fromMcpTool(tool, () => null);
  } catch (cause) {
    if (ToolDefinitionError.isInstance(cause)) return { ok: false, reason: cause.message };
    throw cause;
  }
  return { ok: true, tool };
}
