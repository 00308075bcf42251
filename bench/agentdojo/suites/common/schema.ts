// JSON Schema shorthands for the suites' function arguments.
export const string = { type: 'string' } as const;
export const number = { type: 'number' } as const;
export const strings = { type: 'array', items: { type: 'string' } } as const;
export const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });

/** An object schema; every property is required unless `optional` names it. */
export function object(properties: Record<string, unknown>, optional: readonly string[] = []) {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}
