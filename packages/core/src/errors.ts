const brand = Symbol.for('wardrik.error');

/**
 * The base class of every error Wardrik throws. Each family has a string `code`.
 * Check with `WardrikError.isInstance(e)` (works across package copies), not `instanceof`.
 *
 * @example
 * ```ts
 * try { tool({ name: 'x' } as never) } catch (e) {
 *   if (ToolDefinitionError.isInstance(e)) console.log(e.code, e.message)
 * }
 * ```
 */
export class WardrikError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, brand, { value: true, enumerable: false });
  }

  /** Whether `value` is a Wardrik error of any family. */
  static isInstance(value: unknown): value is WardrikError {
    return typeof value === 'object' && value !== null && brand in value;
  }
}

/** A tool (or its schema or annotations) was built wrongly. Thrown at once, naming the field. */
export class ToolDefinitionError extends WardrikError {
  constructor(message: string, options?: ErrorOptions) {
    super('tool_definition', message, options);
  }

  static override isInstance(value: unknown): value is ToolDefinitionError {
    return WardrikError.isInstance(value) && value.code === 'tool_definition';
  }
}
