import type { Arguments, Label, Tool, Toolset } from '@wardrik/core';
import { toolDefinition } from '../agent.js';
import { modelToolName } from '../model/tool-name.js';
import type { SignInNeeded, ToolsetResult } from './tool-offer.js';
import { type ResolveInput, StepContext } from './toolset-context.js';

/** How a toolset is asked for its tools. */
export interface Asking {
  readonly agentName: string;
  readonly input: ResolveInput;
  /** Told the labels of the state the toolset read. */
  readonly onRead: (labels: readonly Label[]) => void;
  /** How long it may take, when it answers with a promise. */
  readonly timeoutMs: number;
}

/**
 * Asks a toolset for its tools. A toolset that answers at once (an array, not a promise) costs a
 * function call: no timer, and its signal is made only if it reads it.
 */
export function askToolset(
  toolset: Toolset,
  { agentName, input, onRead, timeoutMs }: Asking,
): readonly Tool<never>[] | Promise<readonly Tool<never>[]> {
  const context = new StepContext(agentName, input, onRead);
  const answered = toolset.tools(context);
  if (!isThenable(answered)) return checkedTools(answered);
  return awaitTools(answered, { timeoutMs, onTimeout: () => context.abort() });
}

/** What a toolset that answered with a promise gives, unless it takes longer than the timeout (then `onTimeout`). */
async function awaitTools(
  answered: PromiseLike<readonly Tool<never>[]>,
  { timeoutMs, onTimeout }: { readonly timeoutMs: number; readonly onTimeout: () => void },
): Promise<readonly Tool<never>[]> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`it took longer than ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return checkedTools(await Promise.race([answered, timedOut]));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What a toolset's `tools` offer: each by the name the model sees, with its definition; what is not
 * a tool, or has the name of one of the agent's own (`isOwn`) or another of its tools, is left out.
 */
export function buildToolsetResult(tools: readonly Tool<never>[], isOwn: (name: string) => boolean): ToolsetResult {
  const byName = new Map<string, Tool<Arguments>>();
  const clashes: string[] = [];
  for (const [index, candidate] of tools.entries()) {
    const each = candidate as unknown as Tool<Arguments>;
    if (typeof each !== 'object' || each === null || typeof each.run !== 'function' || !each.schema) {
      clashes.push(`its tools[${index}] is not a tool (build it with tool() from @wardrik/core); left out`);
      continue;
    }
    const name = modelToolName(each.name);
    if (byName.has(name) || isOwn(name)) {
      clashes.push(`its tool ${JSON.stringify(each.name)} has the name of another tool of the agent; left out`);
      continue;
    }
    byName.set(name, each);
  }
  const definitions = [...byName].map(([name, each]) => toolDefinition(each, name));
  return { tools, byName, definitions, clashes };
}

function checkedTools(tools: unknown): readonly Tool<never>[] {
  if (!Array.isArray(tools)) throw new TypeError(`it returned ${typeof tools}, not an array of tools`);
  return tools;
}

export function isThenable(value: unknown): value is PromiseLike<readonly Tool<never>[]> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** The sign-in a toolset's failure asks for (an `McpAuthorizationRequiredError` in its causes), if any. */
export function signInNeeded(thrown: unknown): Omit<SignInNeeded, 'toolset' | 'reason'> | undefined {
  let current: unknown = thrown;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const fields = current as Error & { code?: unknown; url?: unknown; state?: unknown; principal?: unknown };
    if (fields.code === 'mcp_authorization_required' && typeof fields.url === 'string') {
      return {
        url: fields.url,
        ...(typeof fields.state === 'string' ? { state: fields.state } : {}),
        ...(typeof fields.principal === 'string' ? { principal: fields.principal } : {}),
      };
    }
    current = current.cause;
  }
  return undefined;
}
