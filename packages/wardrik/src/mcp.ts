// `wardrik/mcp`: MCP both ways — an MCP server's tools as a toolset (`mcpToolset`), and Wardrik's
// agents served over MCP (`createMcpEndpoint`, `mcpGatewayAgent`).
export { mcpGatewayAgent } from './mcp-server/gateway-agent.js';
export {
  createMcpEndpoint,
  type McpEndpoint,
  type McpEndpointOptions,
} from './mcp-server/mcp-endpoint.js';
export type { McpServerOptions } from './mcp-server/mcp-options.js';
export { McpAuthorizationRequiredError, McpSignInError } from './toolsets/mcp-authorization-required.js';
export type {
  McpAuthorizationRequest,
  McpAuthorizationResult,
  McpOAuthOptions,
} from './toolsets/mcp-oauth-options.js';
export { McpServerUnavailableError } from './toolsets/mcp-server-unavailable.js';
export { type McpToolset, mcpToolset } from './toolsets/mcp-toolset.js';
export type {
  McpHttpToolsetOptions,
  McpRoot,
  McpStdioToolsetOptions,
  McpToolsetCommonOptions,
  McpToolsetOptions,
} from './toolsets/mcp-toolset-options.js';
