import { type Arguments, descriptionOrigin, type Label, mergeLabels, type Tool } from '@wardrik/core';
import { toolDefinition } from '../agent.js';
import type { UnpinnedTool } from '../journal/records.js';
import type { ModelToolDefinition } from '../model/model.js';

/** The tools one model step is offered: the answer to "which tools now?". */
export interface OfferedTools {
  readonly definitions: readonly ModelToolDefinition[];
  /** Their names, in the order offered (journaled when they change). */
  readonly names: readonly string[];
  /** Toolset tools by the name the model sees. */
  readonly fromToolsets: ReadonlyMap<string, Tool<Arguments>>;
  /** Toolsets left out of the step, and why. */
  readonly unavailable: readonly { readonly toolset: string; readonly reason: string }[];
  /** Toolsets left out because their server needs a person to sign in (the OAuth code flow), with where. */
  readonly signIns?: readonly SignInNeeded[];
  /**
   * The labels offering these tools gives a step: those of every definition a source marked (see
   * `describedBy`), e.g. `outside` for an MCP server's or a worker's tool nobody pinned.
   */
  readonly descriptionLabels: readonly Label[];
  /** The definitions that carry labels, with their source and hash (what to review and pin). */
  readonly unpinned: readonly UnpinnedTool[];
}

/**
 * A toolset's remote MCP server needs a person to sign in: `url` is the authorization page to open,
 * `state` the OAuth state its callback brings back (see `McpAuthorizationRequiredError`).
 */
export interface SignInNeeded {
  readonly toolset: string;
  readonly url: string;
  readonly state?: string;
  readonly principal?: string;
  readonly reason: string;
}

/** What `resolve` answers: the tools, and the labels and unpinned definitions the step takes with them. */
export interface ResolvedTools {
  readonly offered: OfferedTools;
  /** Labels from state the toolsets read and from the definitions offered. */
  readonly labels: Label[];
  /**
   * The definitions whose labels the run did not carry yet (so the step is the one they made carry
   * them); undefined when there are none.
   */
  readonly unpinned?: readonly UnpinnedTool[];
}

/** What was built from one answer of a toolset (made once per array it returns). */
export interface ToolsetResult {
  readonly tools: readonly Tool<never>[];
  readonly byName: ReadonlyMap<string, Tool<Arguments>>;
  readonly definitions: readonly ModelToolDefinition[];
  readonly clashes: readonly string[];
}

/** The labels of a set of definitions, and those that carry them. */
export interface Descriptions {
  readonly labels: readonly Label[];
  readonly unpinned: readonly UnpinnedTool[];
}

const NO_DESCRIPTIONS: Descriptions = { labels: [], unpinned: [] };

/** The labels the definitions of `tools` carry (added to `base`'s), and which definitions carry them. */
export function describe(tools: readonly Tool<Arguments>[], base: Descriptions = NO_DESCRIPTIONS): Descriptions {
  let labels = base.labels;
  let unpinned: UnpinnedTool[] | undefined;
  for (const each of tools) {
    const origin = descriptionOrigin(each);
    if (origin === undefined || origin.labels.length === 0) continue;
    labels = mergeLabels(labels, origin.labels);
    unpinned ??= [...base.unpinned];
    unpinned.push({
      source: origin.source,
      tool: origin.tool,
      ...(origin.hash === undefined ? {} : { hash: origin.hash }),
      ...(origin.changed ? { changed: true as const } : {}),
    });
  }
  return unpinned === undefined ? base : { labels, unpinned };
}

/**
 * What a step resolved to: `offered`, with the labels from state and those of its definitions;
 * the unpinned definitions only when they bring a label the run (`carried`) did not have yet.
 */
export function withDescriptions(offered: OfferedTools, read: Label[], carried: readonly Label[]): ResolvedTools {
  const described = offered.descriptionLabels;
  if (described.length === 0) return { offered, labels: read };
  const labels = read.length === 0 ? [...described] : mergeLabels(read, described);
  const brings = described.some((label) => !carried.includes(label));
  return brings ? { offered, labels, unpinned: offered.unpinned } : { offered, labels };
}

/** What a step is offered is made of: the agent's own tools, its toolsets' answers, its workers' tools. */
export interface OfferParts {
  /** The definitions of the agent's own tools and those the runtime added, and their labels. */
  readonly ownDefinitions: readonly ModelToolDefinition[];
  readonly ownDescriptions: Descriptions;
  /** Whether `name` is one of the agent's own tools or one added (a source's tool of that name is left out). */
  readonly isOwn: (name: string) => boolean;
  /** The names of the agent's toolsets, in the order `results` has them. */
  readonly toolsets: readonly { readonly name: string }[];
  readonly results: readonly ToolsetResult[];
  readonly workerTools: ReadonlyMap<string, Tool<Arguments>> | undefined;
  /** Toolsets left out so far (clashes found here are added). */
  readonly unavailable: { toolset: string; reason: string }[];
}

/** The tools a step is offered, from its parts: a toolset's tool that another offered already is left out. */
export function combineOffer(parts: OfferParts): OfferedTools {
  const { results, workerTools, unavailable } = parts;
  const definitions = [...parts.ownDefinitions];
  const described: Tool<Arguments>[] = [];
  const fromToolsets = new Map<string, Tool<Arguments>>();
  for (const [index, result] of results.entries()) {
    for (const [name, each] of result.byName) {
      if (fromToolsets.has(name)) {
        const toolset = parts.toolsets[index]?.name ?? '?';
        unavailable.push({
          toolset,
          reason: `its tool ${JSON.stringify(name)} is offered by another toolset; left out`,
        });
        continue;
      }
      fromToolsets.set(name, each);
    }
  }
  for (const result of results) {
    for (const definition of result.definitions) {
      const each = result.byName.get(definition.name);
      if (each !== undefined && fromToolsets.get(definition.name) === each) {
        definitions.push(definition);
        described.push(each);
      }
    }
  }
  for (const [name, each] of workerTools ?? []) {
    if (!fromToolsets.has(name) && !parts.isOwn(name)) {
      definitions.push(toolDefinition(each));
      described.push(each);
    }
  }
  // Made once per set of tools offered (not per step): the labels of every definition offered.
  const descriptions = describe(described, parts.ownDescriptions);
  return {
    definitions,
    names: definitions.map((each) => each.name),
    fromToolsets,
    unavailable,
    descriptionLabels: descriptions.labels,
    unpinned: descriptions.unpinned,
  };
}
