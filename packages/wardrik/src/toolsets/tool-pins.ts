import { describeType, isValidToolName } from '@wardrik/core';
import { PIN_PATTERN } from './tool-definition-hash.js';

/**
 * The definitions an operator reviewed, by the tool's name as its source lists it: the hash each
 * had then (see `toolDefinitionHash`).
 */
export type ToolPins = Readonly<Record<string, string>>;

/**
 * How a listed definition stands against the pins: `pinned` (its hash is the pin), `unpinned` (no
 * pin for it), `changed` (pinned, but it is not what was pinned). `trusted` when its source is
 * trusted (pins are not looked at).
 */
export type PinState = 'pinned' | 'unpinned' | 'changed' | 'trusted';

/** A definition offered while nobody pinned it, or that changed since it was pinned. */
export interface UnpinnedDefinition {
  /** Its source: `mcp:NAME` for an MCP toolset, `worker:PRINCIPAL` for a worker. */
  readonly source: string;
  /** The tool's name as the source lists it (the pin's key). */
  readonly tool: string;
  /** Its hash now: the pin that would trust it, once reviewed. */
  readonly hash: string;
  readonly state: 'unpinned' | 'changed';
}

/** A source of tools that says when it takes definitions it offers unpinned or changed (metrics listen). */
export interface UnpinnedDefinitionSource {
  /** Calls `listener` for each definition the source takes unpinned or changed; returns the function that stops it. */
  onUnpinned(listener: (definition: UnpinnedDefinition) => void): () => void;
}

/** Whether `value` says when it offers unpinned definitions (an MCP toolset, the worker hub). */
export function isUnpinnedDefinitionSource(value: unknown): value is UnpinnedDefinitionSource {
  return (
    typeof value === 'object' && value !== null && typeof (value as { onUnpinned?: unknown }).onUnpinned === 'function'
  );
}

/**
 * Checks a `pins` option: an object whose keys are tool names and whose values are
 * `sha256:` and 64 lowercase hex digits. `fail` throws the caller's error with the message.
 */
export function checkPins(value: unknown, where: string, fail: (message: string) => never): ToolPins {
  if (value === undefined) return Object.freeze({});
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(`${where} must be an object of tool name → 'sha256:…', got ${describeType(value)}`);
  }
  const pins: Record<string, string> = {};
  for (const [name, pin] of Object.entries(value as Record<string, unknown>)) {
    if (!isValidToolName(name)) fail(`${where}: ${JSON.stringify(name)} is not a tool name`);
    if (typeof pin !== 'string' || !PIN_PATTERN.test(pin)) {
      fail(
        `${where}.${name} must be 'sha256:' and 64 lowercase hex digits (as \`wardrik listings\` prints it), got ${JSON.stringify(pin)}`,
      );
    }
    pins[name] = pin as string;
  }
  return Object.freeze(pins);
}

/** How a definition with `hash` stands against `pins`. */
export function pinState(pins: ToolPins, tool: string, hash: string): 'pinned' | 'unpinned' | 'changed' {
  const pin = Object.hasOwn(pins, tool) ? pins[tool] : undefined;
  if (pin === undefined) return 'unpinned';
  return pin === hash ? 'pinned' : 'changed';
}

/**
 * The listeners of a source's unpinned definitions, and which it told of already: each
 * (tool, hash) is told once, so a listing taken again unchanged is not counted again.
 */
export class UnpinnedDefinitions implements UnpinnedDefinitionSource {
  readonly #listeners = new Set<(definition: UnpinnedDefinition) => void>();
  /** The hash last told for each source and tool. */
  readonly #told = new Map<string, string>();

  onUnpinned(listener: (definition: UnpinnedDefinition) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the listeners of the definitions not told of yet (with this hash); returns those. */
  report(definitions: readonly UnpinnedDefinition[]): UnpinnedDefinition[] {
    const fresh: UnpinnedDefinition[] = [];
    for (const definition of definitions) {
      const key = `${definition.source}\u0000${definition.tool}`;
      if (this.#told.get(key) === definition.hash) continue;
      this.#told.set(key, definition.hash);
      fresh.push(definition);
      for (const listener of this.#listeners) {
        try {
          listener(definition);
        } catch {
          // A listener's failure is its own.
        }
      }
    }
    return fresh;
  }
}

/**
 * The warning logged when a source offers definitions nobody pinned, or that changed since: names
 * each with the hash that would pin it.
 *
 * @example
 * ```ts
 * unpinnedWarning('MCP server docs (node server.js)', 'pins', [{ source: 'mcp:docs', tool: 'search', hash, state: 'unpinned' }])
 * ```
 */
export function unpinnedWarning(where: string, setting: string, definitions: readonly UnpinnedDefinition[]): string {
  const listed = definitions
    .map((each) => `${each.tool} ${each.state === 'changed' ? 'CHANGED since pinned, now ' : ''}${each.hash}`)
    .join(', ');
  return (
    `${where}: ${definitions.length === 1 ? 'a tool definition' : `${definitions.length} tool definitions`} not pinned ` +
    `(${listed}): what it says of its tools is text from outside, so a run offered them carries \`outside\` ` +
    `and its calls that are not read-only wait for a person. Review them (\`wardrik listings\`) and pin them with ${setting}`
  );
}
