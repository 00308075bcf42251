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
  /** The toolset whose server needs the sign-in. */
  readonly toolset: string | undefined;
  /** The OAuth `state` the URL carries: the callback that brings it back finishes this sign-in. */
  readonly state: string | undefined;

  constructor(
    message: string,
    details: { readonly url: string; readonly principal?: string; readonly toolset?: string; readonly state?: string },
  ) {
    super(McpAuthorizationRequiredError.code, message);
    this.url = details.url;
    this.principal = details.principal;
    this.toolset = details.toolset;
    this.state = details.state;
  }

  static override isInstance(value: unknown): value is McpAuthorizationRequiredError {
    return WardrikError.isInstance(value) && value.code === McpAuthorizationRequiredError.code;
  }
}

/**
 * A request to a remote MCP server was refused for want of a sign-in, and signing in failed (the
 * authorization server refused, or its token endpoint failed): the message names the server and
 * why, never a token. The request was not run by the server.
 */
export class McpSignInError extends WardrikError {
  static readonly code = 'mcp_sign_in_failed';

  constructor(message: string, options?: ErrorOptions) {
    super(McpSignInError.code, message, options);
  }

  static override isInstance(value: unknown): value is McpSignInError {
    return WardrikError.isInstance(value) && value.code === McpSignInError.code;
  }
}
