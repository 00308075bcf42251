/**
 * What a call asks a person while it runs, and what the agent's model is asked on its behalf:
 * the shapes behind `ToolContext.requestInput` and `ToolContext.sample` (an MCP server's
 * `elicitation/create` and `sampling/createMessage`, as toolsets and workers pass them on).
 */

/**
 * A question to a person, asked by a call while it runs.
 * - `form`: fill in `schema` (an object JSON Schema of flat fields, as MCP elicitation allows);
 * - `url`: open `url` and do what it asks there (a sign-in, a payment). Wardrik shows the URL to
 *   the person and never opens it itself.
 */
export type InputQuestion =
  | {
      readonly mode: 'form';
      readonly message: string;
      readonly schema: Readonly<Record<string, unknown>>;
    }
  | {
      readonly mode: 'url';
      readonly message: string;
      readonly url: string;
      /** The asker's id for this request (MCP's `elicitationId`). */
      readonly elicitationId?: string;
    };

/**
 * A person's reply: `accept` with what they filled in (form mode: checked against the schema, its
 * defaults applied), `decline` (they said no), or `cancel` (they dismissed the question).
 */
export type InputReply =
  | { readonly action: 'accept'; readonly content?: Readonly<Record<string, unknown>> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/** What a call asks the agent's model (see `ToolContext.sample`). Text only. */
export interface SampleRequest {
  readonly messages: readonly { readonly role: 'user' | 'assistant'; readonly text: string }[];
  readonly systemPrompt?: string;
  /** The most output tokens the answer may take. */
  readonly maxTokens: number;
}

/** The model's answer to a `SampleRequest`. */
export interface SampleResult {
  readonly text: string;
  /** The model that answered. */
  readonly model: string;
  /** Why the model stopped: `endTurn` or `maxTokens`. */
  readonly stopReason: 'endTurn' | 'maxTokens';
}

/**
 * Asks a person on behalf of the work `handle` names: work a long-running tool started (its call
 * answered `started`) that needs input before it can finish (an MCP task that is
 * `input_required`). The run waiting for the work shows a park of kind `input`; resolves with the
 * reply. Rejects when no run waits for `handle`, when the work ends first, or when `signal` aborts.
 */
export type RequestInputFor = (
  handle: string,
  question: InputQuestion,
  options?: { signal?: AbortSignal },
) => Promise<InputReply>;

/** Refuses what only a runtime can give: a call outside one has nobody to ask and no model. */
export function outsideRuntime(what: 'requestInput' | 'requestInputFor' | 'sample'): Promise<never> {
  const reason =
    what === 'sample'
      ? 'sample: this call runs outside a Wardrik runtime, which has no model to ask'
      : `${what}: this call runs outside a Wardrik runtime, where no person can be asked`;
  return Promise.reject(new Error(reason));
}
