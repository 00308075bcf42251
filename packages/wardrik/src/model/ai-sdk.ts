import type * as Ai from 'ai';
import { loadNow } from '../lazy-package.js';

/** The AI SDK (`ai`), loaded when the first AI SDK model is made (not when `wardrik` is imported). */
export function aiSdk(): typeof Ai {
  return loadNow<typeof Ai>('ai', 'an AI SDK model (aiSdkModel, modelFromString)');
}
