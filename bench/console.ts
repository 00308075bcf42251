// The console (issue 16), in Debian's Chromium against a real server on a temp SQLite file.
// 1. A park, from the moment it is written to the moment its card is shown in an open inbox, next
//    to the same event reaching a bare SSE client (fetch, in Node) of the same stream in the same run.
// 2. The inbox with 10,000 open parks: the first screen (50 parks) from a reload, the next page, and
//    the API's first page alone as the floor.
// Run with `npm run bench -- console` (CONSOLE_PARKS=…, CONSOLE_OPEN_PARKS=… to change the counts).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tool } from '@wardrik/core';
import { AuthService, createWardrik, defineAgent, sqliteStore, startServer } from 'wardrik';
import { ScriptedModel } from 'wardrik/testing';
import { launchChromium } from '../packages/console/test/browser.ts';
import { concurrentRuns } from './concurrent-runs.js';
import { median, percentile, table } from './stats.js';

const parks = Number(process.env.CONSOLE_PARKS ?? 100);
const openParks = Number(process.env.CONSOLE_OPEN_PARKS ?? 10_000);
const rounds = Number(process.env.CONSOLE_ROUNDS ?? 5);

const refund = tool({
  name: 'refund',
  description: 'Refund an order.',
  schema: { order_id: { type: 'string', required: true }, amount: { type: 'number', required: true } },
  annotations: { destructive: true },
  run: ({ amount }) => ({ refunded: amount }),
});
const support = defineAgent({
  name: 'support',
  instructions: '',
  tools: [refund],
  model: new ScriptedModel([{ toolCalls: [{ name: 'refund', arguments: { order_id: 'A1', amount: 5 } }] }]),
});

/** Milliseconds since the epoch, with sub-millisecond precision (comparable across processes on one machine). */
const now = () => performance.timeOrigin + performance.now();

/**
 * A bare SSE client in a process of its own (as the browser is): reads the inbox stream with node:http
 * and prints `parkId at` for each park-opened event, `at` by its own clock (ms since the epoch).
 */
const BARE_CLIENT = `
import { get } from 'node:http';
const [url, token] = process.argv.slice(1);
get(url + '/v1/inbox/events', { headers: { authorization: 'Bearer ' + token } }, (response) => {
  response.socket.setNoDelay(true);
  let buffer = '';
  response.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\\n\\n'); end >= 0; end = buffer.indexOf('\\n\\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.startsWith('event: ready')) process.stdout.write('ready\\n');
      if (block.startsWith('event: park-opened')) {
        const at = performance.timeOrigin + performance.now();
        const item = JSON.parse(block.slice(block.indexOf('data: ') + 6));
        process.stdout.write(item.park.id + ' ' + at + '\\n');
      }
    }
  });
});
`;

/** Starts the bare client; calls `onOpened(parkId, at)` for each park it saw. Resolves once it listens. */
async function bareClient(
  url: string,
  token: string,
  onOpened: (parkId: string, at: number) => void,
): Promise<() => void> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BARE_CLIENT, url, token], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line === 'ready') ready();
      else {
        const [parkId = '', at = ''] = line.split(' ');
        onOpened(parkId, Number(at));
      }
    }
  });
  await isReady;
  return () => child.kill();
}

export async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'wardrik-bench-console-'));
  const wardrik = await createWardrik({ store: sqliteStore(join(directory, 'wardrik.db')), agents: [support] });
  const auth = new AuthService(wardrik.store);
  const server = await startServer({ wardrik, auth, port: 0, maxStreamsPerPrincipal: 1000 });
  const token = (await auth.ensureAdmin())?.token ?? '';
  const { context, close } = await launchChromium();
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-live="live"]').waitFor();
    // The page notes when each park's card is in the document (a MutationObserver, in the page).
    await page.evaluate(() => {
      const shown: Record<string, number> = {};
      (window as unknown as { __shown: Record<string, number> }).__shown = shown;
      new MutationObserver(() => {
        for (const card of document.querySelectorAll<HTMLElement>('article[data-park]')) {
          const id = card.dataset['park'] ?? '';
          if (shown[id] === undefined) shown[id] = performance.timeOrigin + performance.now();
        }
      }).observe(document.body, { childList: true, subtree: true });
    });

    // 1. Park written → shown.
    const written = new Map<string, number>();
    const parkOfRun = new Map<string, string>();
    const bare = new Map<string, number>();
    const stopListening = wardrik.subscribe('*', (event) => {
      if (event.type === 'run-parked' && 'record' in event && event.record.type === 'run-parked') {
        written.set(event.record.park.id, now());
        parkOfRun.set(event.runId, event.record.park.id);
      }
    });
    const stopBare = await bareClient(server.url, token, (parkId, at) => bare.set(parkId, at));
    const toBare: number[] = [];
    const toPage: number[] = [];
    for (let index = 0; index < parks + 5; index += 1) {
      const { runId } = await wardrik.start('support', 'refund A1');
      for (let tries = 0; tries < 30_000 && !parkOfRun.has(runId); tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      const id = parkOfRun.get(runId) ?? '';
      await page.waitForFunction(
        (park) => (window as unknown as { __shown: Record<string, number> }).__shown[park] !== undefined,
        id,
        { timeout: 60_000 },
      );
      const shownAt = await page.evaluate(
        (park) => (window as unknown as { __shown: Record<string, number> }).__shown[park] as number,
        id,
      );
      for (let tries = 0; tries < 5_000 && !bare.has(id); tries += 1) await new Promise((r) => setTimeout(r, 2));
      const at = written.get(id) ?? Number.NaN;
      // The first few warm the JIT of the server, the client and the page.
      if (index >= 5) {
        toBare.push((bare.get(id) ?? Number.NaN) - at);
        toPage.push(shownAt - at);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    stopListening();
    stopBare();
    table(`A park, written → seen (${parks} parks, one at a time; ms)`, [
      {
        path: 'bare SSE client (node:http, a process of its own), /v1/inbox/events',
        median: fixed(median(toBare)),
        p95: fixed(percentile(toBare, 95)),
      },
      {
        path: 'the console: card in the inbox (Chromium)',
        median: fixed(median(toPage)),
        p95: fixed(percentile(toPage, 95)),
      },
      {
        path: 'ratio console / bare (of the medians)',
        median: `${(median(toPage) / median(toBare)).toFixed(2)}×`,
        p95: '',
      },
      {
        path: 'console − bare, park by park',
        median: fixed(median(toPage.map((value, index) => value - (toBare[index] ?? Number.NaN)))),
        p95: fixed(
          percentile(
            toPage.map((value, index) => value - (toBare[index] ?? Number.NaN)),
            95,
          ),
        ),
      },
    ]);

    // 2. 10,000 open parks.
    if (openParks === 0) return;
    const started = performance.now();
    await concurrentRuns(100, Math.ceil(openParks / 100), async () => {
      await wardrik.start('support', 'refund A1');
    });
    let openCount = 0;
    for (let tries = 0; tries < 600 && openCount < openParks; tries += 1) {
      openCount = (await wardrik.store.listParks({ status: 'open' })).length;
      if (openCount < openParks) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    console.log(`\n${openCount} open parks, made in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const api: number[] = [];
    const firstScreen: number[] = [];
    const nextPage: number[] = [];
    for (let round = 0; round < rounds + 1; round += 1) {
      const apiStart = performance.now();
      const response = await fetch(`${server.url}/v1/inbox?limit=50`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.json();
      const apiTime = performance.now() - apiStart;

      const reloadStart = performance.now();
      await page.reload();
      await page.locator('article.park').nth(49).waitFor({ timeout: 60_000 });
      const screen = performance.now() - reloadStart;

      const moreStart = performance.now();
      await page.getByRole('button', { name: 'Older parks' }).click();
      await page.locator('article.park').nth(99).waitFor({ timeout: 60_000 });
      const more = performance.now() - moreStart;
      if (round > 0) {
        api.push(apiTime);
        firstScreen.push(screen);
        nextPage.push(more);
      }
    }
    table(`The inbox with ${openCount} open parks (median of ${rounds}; ms)`, [
      {
        what: 'API alone: GET /v1/inbox?limit=50 (fetch, Node)',
        median: fixed(median(api)),
        max: fixed(Math.max(...api)),
      },
      {
        what: 'first screen: reload → 50 cards shown (sign-in kept in the tab)',
        median: fixed(median(firstScreen)),
        max: fixed(Math.max(...firstScreen)),
      },
      {
        what: 'next page: "Older parks" → 100 cards shown',
        median: fixed(median(nextPage)),
        max: fixed(Math.max(...nextPage)),
      },
    ]);
  } finally {
    await close();
    await server.close();
    await wardrik.close();
  }
}

function fixed(value: number): string {
  return value.toFixed(value < 10 ? 2 : 1);
}
