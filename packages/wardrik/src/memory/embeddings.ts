/**
 * Turns text into a vector, the shape of the AI SDK's `embed` (so it can be passed through):
 *
 * ```ts
 * import { embed } from 'ai'
 * import { openai } from '@ai-sdk/openai'
 * const embedText: EmbedFunction = ({ value, abortSignal }) =>
 *   embed({ model: openai.embedding('text-embedding-3-small'), value, abortSignal })
 * ```
 */
export type EmbedFunction = (options: {
  readonly value: string;
  readonly abortSignal?: AbortSignal;
}) => PromiseLike<{ readonly embedding: readonly number[] }>;

/** Embeds one text, checking what came back is a vector of finite numbers. */
export async function embedText(embed: EmbedFunction, value: string): Promise<Float32Array> {
  const result = await embed({ value });
  const embedding = (result as { embedding?: unknown } | undefined)?.embedding;
  if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => Number.isFinite(x))) {
    throw new TypeError('embed: expected { embedding: number[] } (a non-empty array of finite numbers)');
  }
  return Float32Array.from(embedding as number[]);
}

/** The cosine similarity of two vectors (0 when their lengths differ or one is all zeros). */
export function cosine(left: Float32Array, right: Float32Array): number {
  if (left.length !== right.length) return 0;
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index++) {
    const a = left[index] as number;
    const b = right[index] as number;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}

/** How much rank 1 outweighs the ranks after it in {@link fuseRankings} (the usual 60). */
const FUSION_K = 60;

/**
 * Reciprocal rank fusion: each id scores the sum of `1 / (60 + rank)` over the rankings it is in,
 * so that what both full-text and semantic search rank high comes first, and what only one finds
 * still counts. Ids best first.
 */
export function fuseRankings(rankings: readonly (readonly string[])[]): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (FUSION_K + index + 1));
    });
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((left, right) => right.score - left.score);
}
