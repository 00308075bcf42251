/*
 * The console end to end: a real server (started in-process on a temp SQLite file) and Debian's
 * Chromium driven through playwright-core, one browser for the file. People sign in, see parks
 * arrive live, answer them in place (with the keyboard), follow a run's timeline, and meet the
 * refusals: arguments that fail the tool's schema are never sent, a park answered first is a 409
 * shown as such (also when two people race, both inboxes live: the loser is told theirs was not
 * taken), a user sees only its own runs. After an answer the focus moves on, whichever of the
 * live event and the response comes first. Payloads in tool output stay text; invisible
 * characters (bidi controls and the like) are written out as ⟨U+XXXX⟩ and flagged. The
 * screenshots of the README are made here (docs/console-*.png).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OUTSIDE, ok, tool } from '@wardrik/core';
import { connectWorker } from '@wardrik/worker';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthService,
  agentTool,
  createWardrik,
  defineAgent,
  type Message,
  type RunningServer,
  sqliteStore,
  startServer,
  type Wardrik,
} from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { z } from 'zod';
import { launchChromium } from './browser.js';

const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));
const XSS_IMG = '<img src=x onerror="window.__xss=1">';
const XSS_LINK = '<a href="javascript:window.__xss=2">click me</a>';

const lookup = tool({
  name: 'lookup_order',
  description: 'Look an order up on the shop’s site (text from outside).',
  schema: { order_id: { type: 'string', required: true } },
  annotations: { readOnly: true },
  run: ({ order_id }) =>
    ok(
      { order: order_id, note: `Customer wrote: ${XSS_IMG} ${XSS_LINK}`, link: 'javascript:window.__xss=3' },
      {
        labels: [OUTSIDE],
      },
    ),
});
const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: {
    order_id: { type: 'string', required: true },
    amount: { type: 'number', required: true },
  },
  annotations: { destructive: true },
  run: ({ order_id, amount }) => ({ refunded: amount, order: order_id }),
});
const support = defineAgent({
  name: 'support',
  instructions: 'Help with orders.',
  tools: [lookup, refund],
  model: new ScriptedModel((request) => {
    const answers = request.messages.filter((message: Message) => message.role === 'tool');
    if (answers.length === 0) return { toolCalls: [{ name: 'lookup_order', arguments: { order_id: 'A1' } }] };
    if (answers.length === 1) {
      return {
        text: `Refunding A1. ${XSS_IMG}`,
        toolCalls: [{ name: 'refund', arguments: { order_id: 'A1', amount: 120 } }],
        measures: { usd: 0.0042 },
      };
    }
    return { text: `Done: ${JSON.stringify((answers.at(-1) as { content: unknown }).content)} ${XSS_LINK}` };
  }),
});

const ping = tool({ name: 'ping', description: 'pong', annotations: { readOnly: true }, run: () => 'pong' });
/** Each step costs $0.4: a budget of $1 is reached after three. */
const spender = defineAgent({
  name: 'spender',
  instructions: '',
  tools: [ping],
  budget: { usd: 1 },
  model: new ScriptedModel((request) =>
    request.step < 4
      ? { toolCalls: [{ name: 'ping', arguments: {} }], measures: { usd: 0.4 } }
      : { text: 'spent enough', measures: { usd: 0.4 } },
  ),
});
/** A payment that hangs past its timeout: it may have run, so the run parks it in doubt. */
const pay = tool({
  name: 'pay',
  description: 'Pays; hangs.',
  annotations: { timeout: 20 },
  run: () => new Promise(() => {}),
});
const payer = defineAgent({
  name: 'payer',
  instructions: '',
  tools: [pay],
  model: new ScriptedModel((request) => {
    const answer = request.messages.find((message: Message) => message.role === 'tool');
    return answer
      ? { text: `paid: ${JSON.stringify((answer as { content: unknown }).content)}` }
      : { toolCalls: [{ name: 'pay', arguments: {} }] };
  }),
});

/** Refunds the order its input names: whatever the input holds ends up in the held call's arguments. */
const refunder = defineAgent({
  name: 'refunder',
  instructions: '',
  tools: [refund],
  model: new ScriptedModel((request) => {
    const input = String(
      (request.messages.find((message: Message) => message.role === 'user') as { content: unknown }).content,
    );
    return request.messages.some((message: Message) => message.role === 'tool')
      ? { text: 'refunded' }
      : { text: `Refunding ${input}.`, toolCalls: [{ name: 'refund', arguments: { order_id: input, amount: 5 } }] };
  }),
});

/** An agent called as a tool: each call is a child run. */
const researcher = defineAgent({
  name: 'researcher',
  instructions: '',
  model: new ScriptedModel(() => ({ text: 'tea grows in Assam' })),
});
const writer = defineAgent({
  name: 'writer',
  instructions: '',
  tools: [agentTool(researcher)],
  model: new ScriptedModel((request) =>
    request.messages.some((message: Message) => message.role === 'tool')
      ? { text: 'report written' }
      : { toolCalls: [{ name: 'researcher', arguments: { request: 'where does tea grow?' } }] },
  ),
});

let wardrik: Wardrik;
let server: RunningServer;
let close: () => Promise<void>;
let newPage: () => Promise<Page>;
const tokens: Record<string, string> = {};
/** Every URL the browser asked for, to check no token ever went into one. */
const requested: string[] = [];
/** Everything the pages logged to their console. */
const logged: string[] = [];

async function startRun(principal: 'alice' | 'bob'): Promise<{ runId: string; parkId: string }> {
  const response = await fetch(`${server.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[principal]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'support', input: 'Please refund order A1', wait: true }),
  });
  const body = (await response.json()) as { runId: string; status: string; parks: { id: string }[] };
  expect(body.status).toBe('parked');
  return { runId: body.runId, parkId: body.parks[0]?.id ?? '' };
}

/** Starts a run of `agent` as admin and returns it once parked. */
async function startParked(agent: string, input = 'go'): Promise<{ runId: string; parkId: string }> {
  const response = await fetch(`${server.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens['admin']}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent, input, wait: true }),
  });
  const body = (await response.json()) as { runId: string; status: string; parks: { id: string }[] };
  expect(body.status).toBe('parked');
  return { runId: body.runId, parkId: body.parks[0]?.id ?? '' };
}

async function signIn(page: Page, who: string): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.getByLabel('Token').fill(tokens[who] ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The card of a park in the inbox. */
const card = (page: Page, parkId: string) => page.locator(`article[data-park="${parkId}"]`);

/** What has the focus: the park card's id, the element's id, or its tag. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement;
    return active?.getAttribute('data-park') ?? (active?.id || active?.tagName.toLowerCase() || 'none');
  });

/**
 * Holds each answer's response until the page has shown the live park-answered event (the card's
 * form is gone): the event first, as it comes on a real network (27–100 ms before the response).
 */
async function eventBeforeResponse(page: Page, parkId: string, sendWhen?: Promise<void>): Promise<void> {
  await page.route('**/v1/parks/*/answer', async (route) => {
    await sendWhen;
    const response = await route.fetch();
    await card(page, parkId).locator('form').waitFor({ state: 'detached' });
    await route.fulfill({ response });
  });
}

/**
 * Lets the test hold what the page reads from its event streams (set window.__holdStreams): a
 * chunk read meanwhile is handed over only once released, so an answer's response comes first.
 */
async function holdableStreams(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const read = ReadableStreamDefaultReader.prototype.read;
    ReadableStreamDefaultReader.prototype.read = async function (this: ReadableStreamDefaultReader) {
      const chunk = await read.call(this);
      while ((window as unknown as { __holdStreams?: boolean }).__holdStreams) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return chunk;
    } as typeof read;
  });
}

/** Cancels every run that waits for a person, so that the inbox holds only what a test opens. */
async function cancelOpenParks(): Promise<void> {
  for (const park of await wardrik.listParks({ status: 'open' })) await wardrik.cancel(park.runId, 'test clean-up');
}

beforeAll(async () => {
  const directory = mkdtempSync(join(tmpdir(), 'wardrik-console-'));
  wardrik = await createWardrik({
    store: sqliteStore(join(directory, 'wardrik.db')),
    agents: [support, spender, payer, writer, refunder],
  });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0 });
  tokens['admin'] = (await auth.ensureAdmin())?.token ?? '';
  for (const [name, role] of [
    ['olivia', 'operator'],
    ['alice', 'user'],
    ['bob', 'user'],
  ] as const) {
    const principal = await auth.createPrincipal({ name, role, kind: 'user', agents: ['*'] });
    tokens[name] = (await auth.issueToken(principal.id)).token;
  }
  const launched = await launchChromium();
  close = launched.close;
  launched.context.on('request', (request: Request) => {
    requested.push(request.url());
  });
  launched.context.on('console', (message) => {
    logged.push(message.text());
  });
  const page = await fetch(`${server.url}/`);
  if (page.status !== 200) throw new Error(`the console is not built (GET / answered ${page.status}): npm run build`);
  launched.context.setDefaultTimeout(60_000);
  newPage = () => launched.context.newPage();
  mkdirSync(DOCS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await close?.();
  await server?.close();
  await wardrik?.close();
});

// Generous bounds: the suite runs beside every other test file, on a busy machine.
describe('the console', { timeout: 180_000 }, () => {
  it('is served at / with a strict CSP (no inline script), and sign-in shows a 401 plainly', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script is a file

    const page = await newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Token').fill('wdk_not_a_real_token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Not signed in (401)');
    await page.close();
  });

  it('a run parks; the park shows in the open inbox without a reload; approved with the keyboard; the timeline shows who decided', async () => {
    const page = await newPage();
    await signIn(page, 'olivia');
    await page.getByText(/open parks? shown/).waitFor();
    await page.locator('[data-live="live"]').waitFor();

    const { runId, parkId } = await startRun('alice');
    const parked = card(page, parkId);
    await parked.waitFor({ timeout: 60_000 }); // arrived live: no reload
    await expect.poll(() => parked.textContent()).toContain('refund');
    const text = (await parked.textContent()) ?? '';
    expect(text).toContain('approval: a gate held the call');
    expect(text).toContain('support');
    expect(text).toContain(runId);
    expect(text).toContain('outside');
    expect(text).toContain('(text from outside)'); // not told by colour alone
    expect(text).toContain('"amount": 120');
    expect(text).toContain('$0.0042');
    await page.screenshot({ path: join(DOCS, 'console-inbox.png'), fullPage: true });

    // Keyboard only: focus Approve, Enter, then Tab to the Send button, Enter.
    await parked.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    for (let tab = 0; tab < 10; tab += 1) {
      if (await page.evaluate(() => document.activeElement?.textContent?.startsWith('Send'))) break;
      await page.keyboard.press('Tab');
    }
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Send: Approve');
    await page.keyboard.press('Enter');
    await parked.getByText('Answered by olivia: approve').waitFor();
    // The focus moves on (to the next park, or the inbox heading when none waits), never to <body>.
    await expect.poll(() => focused(page)).not.toBe('body');

    const result = await wardrik.wait(runId);
    expect(result.status).toBe('completed');
    await page.goto(`${server.url}/#/runs/${runId}`);
    const timeline = page.getByRole('list', { name: 'timeline' });
    await timeline.getByText('decision by olivia: approve').waitFor();
    await timeline.getByText('answered by olivia: approve').waitFor();
    await page.getByText('ended: completed').waitFor();
    await page.screenshot({ path: join(DOCS, 'console-timeline.png'), fullPage: true });
    await page.close();
  });

  it('edited arguments that fail the tool’s schema are refused before anything is sent; valid ones are sent', async () => {
    const page = await newPage();
    await signIn(page, 'olivia');
    const { runId, parkId } = await startRun('alice');
    const parked = card(page, parkId);
    await parked.waitFor({ timeout: 60_000 });
    const answers: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/answer')) answers.push(request.url());
    });
    await parked.getByRole('button', { name: 'Edit arguments' }).click();
    const editor = parked.getByLabel(/Arguments \(JSON/);
    await editor.fill('{ "order_id": 7, "amount": "lots" }');
    await parked.getByRole('button', { name: 'Send: Edit arguments' }).click();
    const problems = parked.getByRole('alert');
    await expect.poll(() => problems.textContent()).toContain('order_id');
    expect(await problems.textContent()).toContain('amount');
    await editor.fill('{ "order_id": "A1" ');
    await parked.getByRole('button', { name: 'Send: Edit arguments' }).click();
    await expect.poll(() => problems.textContent()).toContain('not JSON');
    expect(answers).toEqual([]);
    expect((await wardrik.getPark(parkId)).status).toBe('open');

    await editor.fill('{ "order_id": "A1", "amount": 60 }');
    await parked.getByRole('button', { name: 'Send: Edit arguments' }).click();
    await parked.getByText('Answered by olivia: edit').waitFor();
    expect(answers).toHaveLength(1);
    expect((await wardrik.wait(runId)).output).toContain('"refunded":60');
    await page.close();
  });

  it('a second person answering the same park sees the 409 and what happened', async () => {
    const first = await newPage();
    const second = await newPage();
    // The second person's inbox is not live (its stream is cut), as if their network lagged.
    await second.route('**/v1/inbox/events', (route) => route.abort());
    await signIn(first, 'olivia');
    await signIn(second, 'admin');
    const { parkId } = await startRun('alice');
    await card(first, parkId).waitFor({ timeout: 60_000 });
    await second.reload();
    await card(second, parkId).waitFor({ timeout: 60_000 });

    await card(first, parkId).getByRole('button', { name: 'Deny' }).click();
    await card(first, parkId)
      .getByLabel(/Reason/)
      .fill('not this one');
    await card(first, parkId).getByRole('button', { name: 'Send: Deny' }).click();
    await card(first, parkId).getByText('Answered by olivia: deny').waitFor();

    await card(second, parkId).getByRole('button', { name: 'Approve' }).click();
    await card(second, parkId).getByRole('button', { name: 'Send: Approve' }).click();
    const conflict = card(second, parkId).locator('.conflict');
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain('Your answer was not taken (conflict, 409)');
    expect(await conflict.textContent()).toContain('olivia answered first and chose deny: “not this one”');
    await expect.poll(() => focused(second)).not.toBe('body');
    expect((await wardrik.getPark(parkId)).decision?.type).toBe('deny');
    await first.close();
    await second.close();
  });

  it('two people send answers to the same park at once, both inboxes live: the loser sees plainly that theirs was not taken, and what was', async () => {
    const first = await newPage();
    const second = await newPage();
    await signIn(first, 'olivia');
    await signIn(second, 'admin');
    await first.locator('[data-live="live"]').waitFor();
    await second.locator('[data-live="live"]').waitFor();
    const { runId, parkId } = await startRun('alice');
    await card(first, parkId).waitFor({ timeout: 60_000 });
    await card(second, parkId).waitFor({ timeout: 60_000 });
    // Neither answer reaches the server before both people have pressed Send: then both go at once.
    let pressed = 0;
    let bothPressed: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      bothPressed = resolve;
    });
    for (const page of [first, second]) {
      page.on('request', (request) => {
        if (request.method() === 'POST' && request.url().endsWith('/answer') && ++pressed === 2) bothPressed();
      });
      await eventBeforeResponse(page, parkId, both);
    }

    await card(first, parkId).getByRole('button', { name: 'Deny' }).click();
    await card(first, parkId)
      .getByLabel(/Reason/)
      .fill('not this one');
    await card(second, parkId).getByRole('button', { name: 'Approve' }).click();
    await card(first, parkId).getByRole('button', { name: 'Send: Deny' }).click();
    await card(second, parkId).getByRole('button', { name: 'Send: Approve' }).click();
    await expect.poll(async () => (await wardrik.getPark(parkId)).status).toBe('answered');
    const taken = await wardrik.getPark(parkId);
    const [winner, loser, lost] = taken.answeredBy === 'olivia' ? [first, second, 'approve'] : [second, first, 'deny'];
    const refused = card(loser, parkId).locator('.conflict');
    await refused.waitFor();
    const said = (await refused.textContent()) ?? '';
    expect(said).toContain('Your answer was not taken');
    expect(said).toContain(`You chose ${lost}`);
    expect(said).toContain(`${taken.answeredBy} answered first and chose ${taken.decision?.type}`);
    // No green tick with the winner's answer on the loser's card.
    expect(await card(loser, parkId).locator('.answered').count()).toBe(0);
    await card(winner, parkId).getByText(`Answered by ${taken.answeredBy}: ${taken.decision?.type}`).waitFor();
    expect(await card(winner, parkId).locator('.conflict').count()).toBe(0);
    await wardrik.wait(runId);
    await first.close();
    await second.close();
  });

  it('after an answer the focus moves to the next park, or the inbox heading, whichever comes first of the live event and the response', async () => {
    await cancelOpenParks();
    const page = await newPage();
    await holdableStreams(page);
    await signIn(page, 'olivia');
    await page.locator('[data-live="live"]').waitFor();
    const older = await startRun('alice');
    const newer = await startRun('alice');
    await card(page, older.parkId).waitFor({ timeout: 60_000 });
    await card(page, newer.parkId).waitFor({ timeout: 60_000 });

    // The live event first: the card is drawn anew before the response comes.
    await eventBeforeResponse(page, newer.parkId);
    await card(page, newer.parkId).getByRole('button', { name: 'Approve' }).click();
    await card(page, newer.parkId).getByRole('button', { name: 'Send: Approve' }).focus();
    await page.keyboard.press('Enter');
    await card(page, newer.parkId).getByText('Answered by olivia: approve').waitFor();
    await expect.poll(() => focused(page)).toBe(older.parkId);
    await page.unroute('**/v1/parks/*/answer');

    // The response first: the event is held back until the card shows the answer.
    await page.evaluate(() => {
      (window as unknown as { __holdStreams?: boolean }).__holdStreams = true;
    });
    await card(page, older.parkId).getByRole('button', { name: 'Deny' }).click();
    await card(page, older.parkId).getByRole('button', { name: 'Send: Deny' }).focus();
    await page.keyboard.press('Enter');
    await card(page, older.parkId).getByText('Answered by olivia: deny').waitFor();
    await expect.poll(() => focused(page)).toBe('inbox-heading');
    await page.evaluate(() => {
      (window as unknown as { __holdStreams?: boolean }).__holdStreams = false;
    });
    await expect.poll(() => page.locator('p[aria-live]', { hasText: `Park ${older.parkId} answered` }).count()).toBe(1);
    expect(await focused(page)).toBe('inbox-heading');
    await wardrik.wait(older.runId);
    await wardrik.wait(newer.runId);
    await page.close();
  });

  it('bidi controls and other invisible characters in a held call are shown as ⟨U+XXXX⟩ and the card is flagged', async () => {
    const page = await newPage();
    await signIn(page, 'olivia');
    await page.locator('[data-live="live"]').waitFor();
    const { runId, parkId } = await startParked('refunder', 'R1\u202Eabc123\u200B');
    const parked = card(page, parkId);
    await parked.waitFor({ timeout: 60_000 });
    const arguments_ = parked.locator('pre.json');
    await expect.poll(() => arguments_.textContent()).toContain('"order_id": "R1⟨U+202E⟩abc123⟨U+200B⟩"');
    expect(await parked.locator('.invisible-flag').textContent()).toContain('holds invisible characters');
    expect(await page.evaluate(() => document.body.textContent)).not.toMatch(/[\u202E\u200B]/);
    // Edited, the arguments keep the characters as JSON escapes: the same value, nothing hidden.
    await parked.getByRole('button', { name: 'Edit arguments' }).click();
    const editor = parked.getByLabel(/Arguments \(JSON/);
    expect(await editor.inputValue()).toContain('"R1\\u202eabc123\\u200b"');
    await parked.getByRole('button', { name: 'Deny' }).click();
    await parked.getByRole('button', { name: 'Send: Deny' }).click();
    await parked.getByText('Answered by olivia: deny').waitFor();

    await page.goto(`${server.url}/#/runs/${runId}`);
    const timeline = page.getByRole('list', { name: 'timeline' });
    await timeline.getByText('ended:', { exact: false }).waitFor();
    const shown = (await timeline.textContent()) ?? '';
    expect(shown).toContain('Refunding R1⟨U+202E⟩abc123⟨U+200B⟩.');
    expect(shown).toContain('"order_id": "R1⟨U+202E⟩abc123⟨U+200B⟩"');
    expect(await timeline.locator('.invisible-flag').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => document.body.textContent)).not.toMatch(/[\u202E\u200B]/);
    await page.close();
  });

  it('model text, tool output and arguments are shown as text: the <img onerror> and javascript: payloads stay text', async () => {
    const page = await newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await signIn(page, 'admin');
    const { runId, parkId } = await startRun('bob');
    await card(page, parkId).waitFor({ timeout: 60_000 });
    await page.goto(`${server.url}/#/runs/${runId}`);
    const timeline = page.getByRole('list', { name: 'timeline' });
    await timeline.getByText('Customer wrote:', { exact: false }).first().waitFor();
    const shown = (await timeline.textContent()) ?? '';
    expect(shown).toContain(XSS_IMG);
    expect(shown).toContain('javascript:window.__xss=2');
    expect(shown).toContain('javascript:window.__xss=3');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(violations).toEqual([]);
    await wardrik.cancel(runId, 'test done');
    await page.close();
  });

  it('a budget park: raising the budget checks the limits and lets the run go on', async () => {
    const page = await newPage();
    await signIn(page, 'olivia');
    const { runId, parkId } = await startParked('spender');
    const parked = card(page, parkId);
    await parked.waitFor({ timeout: 60_000 });
    expect(await parked.textContent()).toContain('budget reached');
    await parked.getByRole('button', { name: 'Raise the budget' }).click();
    await parked.getByLabel('usd').fill('-3');
    await parked.getByRole('button', { name: 'Send: Raise the budget' }).click();
    await expect.poll(() => parked.getByRole('alert').textContent()).toContain('usd: expected a positive number');
    await parked.getByLabel('usd').fill('5');
    await parked.getByRole('button', { name: 'Send: Raise the budget' }).click();
    await parked.getByText('Answered by olivia: raise-budget').waitFor();
    expect((await wardrik.wait(runId)).output).toBe('spent enough');
    await page.close();
  });

  it('an in-doubt call: "it ran, here is its answer" gives the model that answer', async () => {
    const page = await newPage();
    await signIn(page, 'olivia');
    const { runId, parkId } = await startParked('payer');
    const parked = card(page, parkId);
    await parked.waitFor({ timeout: 60_000 });
    expect(await parked.textContent()).toContain('in doubt: the call may have run');
    await parked.getByRole('button', { name: 'It ran: here is its answer' }).click();
    await parked.getByLabel('The call’s answer').fill('{ "paid": 42 }');
    await parked.getByRole('button', { name: 'Send: It ran: here is its answer' }).click();
    await parked.getByText('Answered by olivia: answer').waitFor();
    expect((await wardrik.wait(runId)).output).toBe('paid: {"paid":42}');
    await page.close();
  });

  it('a user token sees only its own runs and parks, and is not offered what it may not do', async () => {
    const own = await startRun('bob');
    const others = await startRun('alice');
    const page = await newPage();
    await signIn(page, 'bob');
    const nav = page.getByRole('navigation', { name: 'pages' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Inbox', 'Runs', 'Sessions']);
    await card(page, own.parkId).waitFor();
    expect(await card(page, others.parkId).count()).toBe(0);
    expect(await card(page, own.parkId).getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.goto(`${server.url}/#/runs`);
    const runs = page.getByRole('list', { name: 'runs' });
    await runs.getByText(own.runId).waitFor();
    expect(await runs.getByText(others.runId).count()).toBe(0);
    await page.goto(`${server.url}/#/runs/${own.runId}`);
    await page.getByText('Timeline').waitFor();
    expect(await page.getByRole('button', { name: /Cancel the run/ }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /Release labels/ }).count()).toBe(0);
    await page.goto(`${server.url}/#/runs/${others.runId}`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Not allowed (403)');
    await wardrik.cancel(own.runId);
    await wardrik.cancel(others.runId);
    await page.close();
  });

  it('an operator releases labels with a reason and cancels a run from its page', async () => {
    const { runId } = await startRun('alice');
    const page = await newPage();
    await signIn(page, 'olivia');
    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.getByRole('button', { name: 'Release labels…' }).click();
    await page.getByRole('checkbox', { name: 'outside' }).check();
    await page.getByLabel('Why they may be released').fill('checked the page by hand');
    await page.getByRole('button', { name: 'Release', exact: true }).click();
    await page.getByText('labels released by olivia').waitFor();
    expect((await wardrik.getRunSummary(runId)).labels).toEqual([]);

    await page.getByRole('button', { name: 'Cancel the run…' }).click();
    await page.getByLabel('Reason').fill('customer withdrew');
    await page.getByRole('button', { name: 'Cancel the run', exact: true }).click();
    await page.getByText('ended: cancelled').waitFor();
    expect((await wardrik.getRunSummary(runId)).status).toBe('cancelled');
    await page.close();
  });

  it('tokens: an admin creates one (shown once) and revokes it; workers and sessions pages load', async () => {
    const page = await newPage();
    await signIn(page, 'admin');
    await page.goto(`${server.url}/#/tokens`);
    await page.getByLabel('Principal name').fill('dana');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = page.getByLabel('the new token');
    await secret.waitFor();
    const token = await secret.inputValue();
    expect(token).toMatch(/^wdk_/);
    const row = page.getByRole('list', { name: 'tokens' }).getByRole('listitem').filter({ hasText: 'dana' });
    await row.waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText(/revoked/).waitFor();
    const refused = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);

    await page.goto(`${server.url}/#/workers`);
    await page.getByText('No worker is connected.').waitFor();

    // A worker connects (an MCP SDK server): the page shows it within its next read, with its tools.
    const created = await fetch(`${server.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens['admin']}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'billing-worker', role: 'worker', kind: 'worker', agents: ['*'] }),
    });
    const mcp = new McpServer({ name: 'billing', version: '1.0.0' });
    mcp.registerTool(
      'orders.refund',
      { description: 'Refund an order.', inputSchema: { orderId: z.string() } },
      async ({ orderId }) => ({ content: [{ type: 'text', text: `refunded ${orderId}` }] }),
    );
    mcp.registerTool('bad name!', { description: 'A name Wardrik refuses.' }, async () => ({ content: [] }));
    const worker = connectWorker({
      url: server.url,
      token: ((await created.json()) as { token: string }).token,
      server: mcp,
    });
    await worker.ready;
    const listed = page.getByRole('article', { name: /^worker / });
    await listed.waitFor({ timeout: 60_000 });
    expect(await listed.textContent()).toContain('billing-worker');
    expect(await listed.textContent()).toMatch(/orders\.refund \(the model sees workers__orders_refund_[0-9a-f]{8}\)/);
    expect(await listed.textContent()).toMatch(/Left out.*bad name!: invalid name/);
    await worker.close();

    await page.goto(`${server.url}/#/sessions`);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.close();
  });

  it('sessions: an operator reads one and sets a key of its state, with a reason kept with the change', async () => {
    const created = await fetch(`${server.url}/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens['alice']}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'support' }),
    });
    const { id } = (await created.json()) as { id: string };
    const page = await newPage();
    await signIn(page, 'olivia');
    await page.goto(`${server.url}/#/sessions`);
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: `Session ${id}` }).waitFor();
    await page.getByLabel(/^Key/).fill('cart');
    await page.getByLabel('New value (JSON)').fill('["tea", "<b>not bold</b>"]');
    await page.getByLabel(/^Why/).fill('the customer asked by phone');
    await page.getByRole('button', { name: 'Set the value' }).click();
    const edits = page.getByRole('list', { name: 'edits' });
    await edits.getByText('the customer asked by phone').waitFor();
    expect(await edits.textContent()).toContain('olivia');
    expect(await page.locator('b').count()).toBe(0);
    const details = await wardrik.sessionDetails(id);
    expect(details.state.find((value) => value.key === 'cart')?.value).toEqual(['tea', '<b>not bold</b>']);
    await page.close();
  });

  it('a run’s page follows it live: an answer given elsewhere and the run’s end appear without a reload', async () => {
    const { runId, parkId } = await startRun('alice');
    const page = await newPage();
    await signIn(page, 'olivia');
    await page.goto(`${server.url}/#/runs/${runId}`);
    const timeline = page.getByRole('list', { name: 'timeline' });
    await timeline.getByText('waiting for a person').waitFor();
    const park = await wardrik.getPark(parkId);
    await wardrik.answerPark(parkId, { type: 'approve', remember: 'run' }, { callHash: park.callHash, by: 'bea' });
    await timeline.getByText('decision by bea: approve').waitFor();
    await timeline.getByText('ended: completed').waitFor();
    await page.close();
  });

  it('a run that called an agent as a tool links to its child run, and the child back to it', async () => {
    const { runId } = await wardrik.start('writer', 'write a report', { principal: 'olivia' });
    expect((await wardrik.wait(runId)).output).toBe('report written');
    const page = await newPage();
    await signIn(page, 'admin');
    await page.goto(`${server.url}/#/runs/${runId}`);
    const timeline = page.getByRole('list', { name: 'timeline' });
    await timeline.getByText('child run of agent researcher').waitFor();
    await timeline.getByRole('link', { name: /^run_/ }).click();
    await page.getByText('a child run, called by run').waitFor();
    expect(await page.getByRole('link', { name: runId }).count()).toBe(1);
    await page.getByText('tea grows in Assam').first().waitFor();
    await page.close();
  });

  it('works at 360 px wide: nothing scrolls sideways on the inbox or a run', async () => {
    const { runId } = await startRun('alice');
    const page = await newPage();
    await page.setViewportSize({ width: 360, height: 780 });
    await signIn(page, 'olivia');
    await page.locator('article.park').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: join(DOCS, 'console-inbox-360.png') });
    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.getByText('Timeline').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await wardrik.cancel(runId);
    await page.close();
  });

  it('a burst of parks arriving live shows a page of them; the rest come with "Older parks"', async () => {
    const page = await newPage();
    await signIn(page, 'olivia');
    await page.locator('[data-live="live"]').waitFor();
    const before = (await wardrik.listParks({ status: 'open' })).length;
    const runs = await Promise.all(Array.from({ length: 60 }, () => wardrik.start('support', 'refund A1')));
    await expect
      .poll(async () => (await wardrik.listParks({ status: 'open' })).length, { timeout: 60_000 })
      .toBe(before + 60);
    const cards = page.locator('article.park');
    await expect
      .poll(() => page.locator('.muted', { hasText: 'open parks shown' }).textContent())
      .toContain('50 open parks shown (more below)');
    expect(await cards.count()).toBeLessThanOrEqual(50 + before);
    await page.getByRole('button', { name: 'Older parks' }).click();
    await expect.poll(() => cards.count(), { timeout: 60_000 }).toBe(before + 60);
    for (const { runId } of runs) await wardrik.cancel(runId);
    await page.close();
  });

  it('never puts a token in a URL, a log, a cookie or localStorage: only in the tab’s sessionStorage', async () => {
    const page = await newPage();
    await signIn(page, 'olivia');
    expect(await page.evaluate(() => sessionStorage.getItem('wardrik.token'))).toBe(tokens['olivia']);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await page.context().cookies()).toEqual([]);
    for (const token of Object.values(tokens)) {
      expect(requested.filter((url) => url.includes(token))).toEqual([]);
      expect(logged.filter((line) => line.includes(token))).toEqual([]);
    }
    await page.close();
  });
});
