import { error, type Tool, tool } from '@wardrik/core';
import { builtOnFirstUse } from '../memory/built-on-first-use.js';
import { isTextual } from './names.js';

/** Options of {@link loadArtifactsTool}. */
export interface LoadArtifactsOptions {
  /** The most characters of one artifact's text a call returns (the rest is cut, saying so). Default 20,000. */
  readonly maxChars?: number;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * A tool that loads artifacts (ADK's LoadArtifacts): `load_artifacts({})` lists the artifacts of
 * the session and of the user (`user:` names) with their versions and media types;
 * `load_artifacts({ names: [...] })` returns their content — the text of textual ones (text/*,
 * JSON, XML, …), a note for binary ones. Read-only. The labels of what it lists or loads are
 * added to its answer: an artifact saved by a run carrying `outside` taints the run that loads it.
 *
 * @example
 * ```ts
 * const support = defineAgent({ name: 'support', instructions: '…', model, tools: [loadArtifacts] })
 * ```
 */
export function loadArtifactsTool(options: LoadArtifactsOptions = {}): Tool<{ names?: string[] }> {
  const maxChars = options.maxChars ?? 20_000;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new TypeError(`loadArtifactsTool: maxChars must be a whole number of 1 or more, got ${maxChars}`);
  }
  return tool({
    name: 'load_artifacts',
    description:
      'Load artifacts: files kept in this conversation (and the user’s own, named user:…). Call it without names to ' +
      'list them; with names to read them (their latest version).',
    schema: {
      names: { type: 'list', of: { type: 'string' }, doc: 'The artifacts to read; leave out to list them.' },
    },
    annotations: { readOnly: true },
    run: async ({ names }, context) => {
      if (names === undefined || names.length === 0) {
        const listed = await context.artifacts.list();
        return {
          artifacts: listed.map((each) => ({
            name: each.name,
            version: each.version,
            mediaType: each.mediaType,
            size: each.size,
          })),
        };
      }
      if (names.length > 20) return error(`names: at most 20 artifacts a call, got ${names.length}`);
      const loaded = [];
      for (const name of names) {
        let artifact: Awaited<ReturnType<typeof context.artifacts.load>>;
        try {
          artifact = await context.artifacts.load(name);
        } catch (cause) {
          return error((cause as Error).message, { code: 'invalid_arguments' });
        }
        if (!artifact) {
          loaded.push({ name, found: false });
          continue;
        }
        const about = { name, version: artifact.version, mediaType: artifact.mediaType, size: artifact.size };
        if (!isTextual(artifact.mediaType)) {
          loaded.push({ ...about, content: null, note: 'binary content: not shown' });
          continue;
        }
        const text = decoder.decode(artifact.data);
        loaded.push(
          text.length > maxChars
            ? {
                ...about,
                content: text.slice(0, maxChars),
                truncated: `cut at ${maxChars} of ${text.length} characters`,
              }
            : { ...about, content: text },
        );
      }
      return { artifacts: loaded };
    },
  });
}

/**
 * {@link loadArtifactsTool} with its defaults: `load_artifacts`, up to 20,000 characters an
 * artifact. Built (its schema compiled, once) the first time it is read, e.g. by `defineAgent`,
 * not when Wardrik is imported.
 */
export const loadArtifacts: Tool<{ names?: string[] }> = builtOnFirstUse(() => loadArtifactsTool());
