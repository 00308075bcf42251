import { WardrikError } from '@wardrik/core';

/**
 * What an MCP toolset's `tools()` throws while its server can't be reached: the server could not
 * be started or connected to, it went away, it answered nonsense, or the toolset was closed. The
 * message names the toolset, the server and why; the run leaves the toolset out of that step.
 *
 * @example
 * ```ts
 * try { await files.tools(context) } catch (e) {
 *   if (McpServerUnavailableError.isInstance(e)) console.warn(e.message)
 * }
 * ```
 */
export class McpServerUnavailableError extends WardrikError {
  static readonly code = 'mcp_server_unavailable';

  constructor(message: string, options?: ErrorOptions) {
    super(McpServerUnavailableError.code, message, options);
  }

  static override isInstance(value: unknown): value is McpServerUnavailableError {
    return WardrikError.isInstance(value) && value.code === McpServerUnavailableError.code;
  }
}
