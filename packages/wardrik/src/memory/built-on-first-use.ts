import type { Tool } from '@wardrik/core';

/** A tool's fields, as `tool()` makes them for a tool without a `title`. */
const fields = ['name', 'description', 'run', 'schema', 'annotations', 'privates'] as const;

/**
 * A tool value whose tool is built by `build` the first time any of its fields is read, then kept:
 * for tools exported ready-made (`loadMemory`, `loadArtifacts`), so that importing Wardrik does not
 * compile their schemas (and load Ajv). Building still compiles the schema once, as `tool()` does:
 * in practice when an agent listing the tool is defined (`defineAgent` reads its schema), at the
 * latest when a call first looks it up — never again after. The value is one frozen object, so it
 * is the same tool (for `===` and maps keyed by tools) before and after it is built; `annotate` and
 * `putPrivate` copy its built fields.
 *
 * Only for tools built without a `title` (the fields are fixed before the tool is built); throws
 * when first read otherwise.
 */
export function builtOnFirstUse<Args>(build: () => Tool<Args>): Tool<Args> {
  let built: Tool<Args> | undefined;
  const tool = (): Tool<Args> => {
    if (built === undefined) {
      const made = build();
      if (made.title !== undefined) throw new TypeError(`builtOnFirstUse: tool ${made.name} has a title`);
      built = made;
    }
    return built;
  };
  const lazy = {};
  for (const field of fields) Object.defineProperty(lazy, field, { enumerable: true, get: () => tool()[field] });
  return Object.freeze(lazy) as Tool<Args>;
}
