import { WardrikError } from '@wardrik/core';

/**
 * A remote MCP server needs a person to sign in (the OAuth authorization-code flow) and nobody
 * has yet: `url` is the authorization server's page to show them. The toolset is unavailable
 * until `completeAuthorization({ code, state })` brings back the callback's parameters.
 */
export class McpAuthorizationRequiredError extends WardrikError {
  static readonly code = 'mcp_authorization_required';
  readonly url: string;
  readonly principal: string | undefined;

  constructor(message: string, details: { readonly url: string; readonly principal?: string }) {
    super(McpAuthorizationRequiredError.code, message);
    this.url = details.url;
    this.principal = details.principal;
  }

  static override isInstance(value: unknown): value is McpAuthorizationRequiredError {
    return WardrikError.isInstance(value) && value.code === McpAuthorizationRequiredError.code;
  }
}
