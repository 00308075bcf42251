/**
 * A child process for the model crash test (`../ai-sdk-model.test.ts`): opens the SQLite file,
 * starts one run whose agent talks to the local OpenAI-compatible server through the real
 * `@ai-sdk/openai-compatible` provider, prints `{"runId":…}` once the run is durably started, and
 * then waits: the server holds the model's answer and the parent SIGKILLs this process.
 *
 *   node --conditions=@wardrik/source --import tsx packages/wardrik/test/ai-sdk/crash-child.ts <dbPath> <baseURL>
 */
import { writeSync } from 'node:fs';
import { createWardrik, modelFromString, sqliteStore } from '../../src/index.js';
import { supportAgent } from './orders.js';

const [dbPath, baseURL] = process.argv.slice(2);
if (!dbPath || !baseURL) {
  process.stderr.write('usage: crash-child.ts <dbPath> <baseURL>\n');
  process.exit(2);
}

const model = modelFromString(`openai-compatible:test-model@${baseURL}`, {}, { log: () => {} });
const wardrik = await createWardrik({ store: sqliteStore(dbPath), agents: [supportAgent(model)] });
const { runId } = await wardrik.start('support', 'Where are A1 and B2?');
writeSync(1, `${JSON.stringify({ runId })}\n`);
await new Promise(() => {}); // until killed
