import { type Arguments, descriptionOrigin, type Tool } from '@wardrik/core';
import type { CalledModel } from '../runtime/hooks.js';

/**
 * What the OpenTelemetry GenAI semantic conventions name a model by: the provider
 * (`gen_ai.provider.name`), the model the provider was asked for (`gen_ai.request.model`), and the
 * server requests went to (`server.address`, `server.port`), when known.
 */
export interface GenAiModelNames {
  readonly provider: string;
  readonly requestModel: string;
  readonly serverAddress?: string;
  readonly serverPort?: number;
}

/** AI SDK provider names (the part before the first `.`) and the conventions' well-known values. */
const PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  'google-vertex': 'gcp.vertex_ai',
  vertex: 'gcp.vertex_ai',
  'amazon-bedrock': 'aws.bedrock',
  bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
  'azure-openai': 'azure.ai.openai',
  mistral: 'mistral_ai',
  groq: 'groq',
  xai: 'x_ai',
  deepseek: 'deepseek',
  cohere: 'cohere',
  perplexity: 'perplexity',
  moonshotai: 'moonshot_ai',
  'ibm-watsonx': 'ibm.watsonx.ai',
};

/** The conventions' name for a provider Wardrik or the AI SDK names (`openai.chat` → `openai`); others as they are. */
export function conventionalProvider(provider: string): string {
  if (provider.startsWith('google.vertex')) return 'gcp.vertex_ai';
  const prefix = provider.split('.')[0] ?? provider;
  return PROVIDERS[prefix] ?? prefix;
}

/** Names by model, computed once each (a model's fields do not change). */
const known = new WeakMap<object, GenAiModelNames>();
const byId = new Map<string, GenAiModelNames>();

/**
 * The conventions' names of a model: from what the `Model` says of itself (`provider`,
 * `modelName`, `baseUrl`), else from its id (`openai:gpt-4o-mini` → provider `openai`, model
 * `gpt-4o-mini`). A model that says nothing and whose id has no `provider:` has provider `unknown`.
 *
 * @example
 * ```ts
 * genAiModelNames('openai:gpt-4o-mini') // { provider: 'openai', requestModel: 'gpt-4o-mini' }
 * ```
 */
export function genAiModelNames(id: string, called?: CalledModel): GenAiModelNames {
  const cached = called ? known.get(called) : byId.get(id);
  if (cached) return cached;
  const colon = id.indexOf(':');
  const provider = called?.provider ?? (colon > 0 ? id.slice(0, colon) : undefined);
  const names: GenAiModelNames = {
    provider: provider ? conventionalProvider(provider) : 'unknown',
    requestModel: called?.modelName ?? (colon > 0 ? id.slice(colon + 1) : id),
    ...serverOf(called?.baseUrl),
  };
  if (called) known.set(called, names);
  else if (byId.size < 1000) byId.set(id, names);
  return names;
}

/** `server.address` and `server.port` of a base URL (the port its scheme implies when it names none). */
function serverOf(baseUrl: string | undefined): { serverAddress?: string; serverPort?: number } {
  if (!baseUrl) return {};
  try {
    const url = new URL(baseUrl);
    const port = url.port
      ? Number(url.port)
      : url.protocol === 'https:'
        ? 443
        : url.protocol === 'http:'
          ? 80
          : undefined;
    const address = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return port === undefined ? { serverAddress: address } : { serverAddress: address, serverPort: port };
  } catch {
    return {};
  }
}

/**
 * The conventions' `gen_ai.tool.type` of a tool: `extension` for one an MCP server or a worker
 * runs (the agent's side calls out to it), `function` for the agent's own (code in this process:
 * local tools, agents used as tools, transfers).
 */
export function toolType(name: string, definition: Tool<Arguments> | undefined): 'function' | 'extension' {
  if (name.startsWith('workers__')) return 'extension';
  return definition && descriptionOrigin(definition) !== undefined ? 'extension' : 'function';
}
