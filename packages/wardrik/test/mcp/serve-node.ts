/**
 * A Wardrik node serving MCP for the restart test (`../mcp-server-restart.test.ts`), until it is
 * killed: a SQLite store, `startServer` on a free port, and an agent whose run charges once (a
 * call that is not repeatable) and then waits for a file to appear (a read-only call, repeated
 * after a crash).
 *
 *   node --conditions=@wardrik/source --import tsx packages/wardrik/test/mcp/serve-node.ts \
 *     <databasePath> <execLogPath> <goFilePath> <tokenFilePath>
 *
 * Prints `{"ready":true,"url":…,"token":…}` once it listens (the admin token: made the first
 * time and kept in <tokenFilePath>, read from it after a restart).
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { tool } from '@wardrik/core';
import { AuthService, createWardrik, defineAgent, sqliteStore, startServer } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

const [databasePath, execLogPath, goFilePath, tokenFilePath] = process.argv.slice(2);
if (!databasePath || !execLogPath || !goFilePath || !tokenFilePath) {
  process.stderr.write('usage: serve-node.ts <databasePath> <execLogPath> <goFilePath> <tokenFilePath>\n');
  process.exit(2);
}

const charge = tool({
  name: 'charge',
  description: 'Charges the card (not safe to repeat).',
  run: (_args, context) => {
    appendFileSync(execLogPath, `charge ${context.idempotencyKey}\n`);
    return { charged: true };
  },
});
const waitForGo = tool({
  name: 'wait_for_go',
  description: 'Waits until the go file exists.',
  annotations: { readOnly: true },
  run: async (_args, context) => {
    appendFileSync(execLogPath, `wait ${process.pid}\n`);
    while (!existsSync(goFilePath)) {
      if (context.signal.aborted) throw new Error('stopped');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return 'go';
  },
});
const orders = defineAgent({
  name: 'orders',
  instructions: '',
  tools: [charge, waitForGo],
  model: new ScriptedModel([
    { toolCalls: [{ name: 'charge', arguments: {} }] },
    { toolCalls: [{ name: 'wait_for_go', arguments: {} }] },
    { text: 'charged once, and done' },
  ]),
});

const wardrik = await createWardrik({ store: sqliteStore(databasePath), agents: [orders] });
const auth = new AuthService(wardrik.store);
const created = await auth.ensureAdmin();
if (created) writeFileSync(tokenFilePath, created.token);
const server = await startServer({ wardrik, auth, port: 0 });
writeSync(1, `${JSON.stringify({ ready: true, url: server.url, token: readFileSync(tokenFilePath, 'utf8') })}\n`);
