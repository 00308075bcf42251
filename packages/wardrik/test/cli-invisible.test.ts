/*
 * Invisible characters in what the CLI shows a person: a right-to-left override (U+202E) in a held
 * call's arguments would make `"R1\u202Eabc123"` read `"R1,"321cba`, and `invoice\u202Efdp.exe`
 * read "invoiceexe.pdf". `wardrik run`, `parks`, `show` and `chat` (the built bin, against a real
 * `wardrik serve`) write them out as ⟨U+202E⟩ and flag what holds them; no raw one reaches stdout.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCli,
  cleanEnv,
  cli,
  cliPath,
  type Result,
  type Spawned,
  startServe,
  stopServe,
  tmpRoot,
} from './cli-process.js';

/** The config served: `orders`, whose model refunds (`refund X`) or attaches (`attach X`) what the input names. */
const CONFIG = `
import { park, tool } from '@wardrik/core';
import { defineAgent, defineConfig } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';

const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true } },
  annotations: { destructive: true },
  run: ({ order_id }) => ({ refunded: order_id }),
});
const attach = tool({
  name: 'attach',
  description: 'Attach a file to the reply, once a person agrees.',
  schema: { file: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ file }, context) => (context.approval ? { attached: file } : park('attach ' + file + ' to the reply?')),
});
const orders = defineAgent({
  name: 'orders',
  instructions: '',
  tools: [refund, attach],
  model: new ScriptedModel((request) => {
    if (request.messages.at(-1)?.role === 'tool') return { text: 'done' };
    const input = request.messages.findLast((message) => message.role === 'user')?.content ?? '';
    const [verb, ...rest] = input.split(' ');
    const what = rest.join(' ');
    return verb === 'attach'
      ? { text: 'Attaching ' + what + '.', toolCalls: [{ name: 'attach', arguments: { file: what } }] }
      : { text: 'Refunding ' + what + '.', toolCalls: [{ name: 'refund', arguments: { order_id: what } }] };
  }),
});

export default defineConfig({ agents: [orders] });
`;

/** Bidi override, zero-width space and a tag character: all three must show. */
const ORDER = 'R1\u202Eabc123\u200B\u{E0041}';
const ORDER_SHOWN = 'R1⟨U+202E⟩abc123⟨U+200B⟩⟨U+E0041⟩';
const FILE = 'invoice\u202Efdp.exe';
const FILE_SHOWN = 'invoice⟨U+202E⟩fdp.exe';
const FLAG = 'holds invisible characters';
/** Any of the characters the test puts in, raw. */
const RAW = /[\u202E\u200B]|\u{E0041}/u;

let directory: string;
let server: Spawned | undefined;
let url = '';

beforeAll(async () => {
  await buildCli();
  directory = mkdtempSync(join(tmpRoot, 'cli-invisible-'));
  writeFileSync(join(directory, 'wardrik.config.mjs'), CONFIG);
  ({ server, url } = await startServe(directory));
}, 120_000);

afterAll(async () => {
  await stopServe(server);
  if (directory) rmSync(directory, { recursive: true, force: true });
});

const run = (args: readonly string[]) => cli(args, { cwd: directory, env: { WARDRIK_URL: url } });

/** What stdout holds, with none of the raw characters and each shown form. */
function expectRevealed(result: Result, shown: readonly string[]): void {
  expect(result.stderr).toBe('');
  expect(result.stdout).not.toMatch(RAW);
  for (const each of shown) expect(result.stdout).toContain(each);
}

describe('invisible characters in what the CLI shows', () => {
  let refundRun = '';

  it('run: the model’s text and the held call show ⟨U+202E⟩, and the park is flagged', async () => {
    const result = await run(['run', 'orders', `refund ${ORDER}`]);
    expect(result.code).toBe(3);
    expectRevealed(result, [`model: Refunding ${ORDER_SHOWN}.`, `holds refund({"order_id":"${ORDER_SHOWN}"})`, FLAG]);
    refundRun = /Run (run_\S+) of orders/.exec(result.stdout)?.[1] ?? '';
    expect(refundRun).not.toBe('');
  });

  it('parks: the table shows the call and the reason written out, and flags each park that holds some', async () => {
    const attached = await run(['run', 'orders', `attach ${FILE}`]);
    expect(attached.code).toBe(3);
    const result = await run(['parks']);
    expect(result.code).toBe(0);
    // The CALL column is cut at 50 characters.
    expectRevealed(result, ['refund({"order_id":"R1⟨U+202E⟩abc123⟨U+200B⟩', `attach ${FILE_SHOWN} to the reply?`]);
    const parks = JSON.parse((await run(['parks', '--json'])).stdout) as { id: string }[];
    expect(parks).toHaveLength(2);
    for (const park of parks) expect(result.stdout).toContain(`${park.id} !! ${FLAG}`);
  });

  it('show: the input, the model’s text and the held call are written out, each flagged', async () => {
    const result = await run(['show', refundRun]);
    expect(result.code).toBe(0);
    expectRevealed(result, [
      `Input: "refund ${ORDER_SHOWN}"`,
      `model: Refunding ${ORDER_SHOWN}.`,
      `holds refund({"order_id":"${ORDER_SHOWN}"})`,
    ]);
    // The run's start, its model step and its park each say so.
    expect(result.stdout.split(FLAG).length - 1).toBe(3);
  });

  it('chat: the line typed, the model’s text and the park are written out and flagged', () => {
    const chat = spawnSync(process.execPath, [cliPath, 'chat', 'orders'], {
      cwd: directory,
      env: cleanEnv({ WARDRIK_URL: url }),
      input: `refund ${ORDER}\n`,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(chat.status).toBe(3);
    expectRevealed({ code: chat.status, stdout: chat.stdout, stderr: chat.stderr }, [
      `you: refund ${ORDER_SHOWN}`,
      `model: Refunding ${ORDER_SHOWN}.`,
      `holds refund({"order_id":"${ORDER_SHOWN}"})`,
      FLAG,
    ]);
    const session = /Started session (\S+) with orders/.exec(chat.stdout)?.[1] ?? '';
    expect(session).not.toBe('');

    // Coming back, the conversation so far is written out and flagged too.
    const again = spawnSync(process.execPath, [cliPath, 'chat', 'orders', '--session', session], {
      cwd: directory,
      env: cleanEnv({ WARDRIK_URL: url }),
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expectRevealed({ code: again.status, stdout: again.stdout, stderr: again.stderr }, [
      `you: refund ${ORDER_SHOWN}`,
      FLAG,
    ]);
  });
});
