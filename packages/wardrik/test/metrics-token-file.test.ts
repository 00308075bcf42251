/*
 * The metrics token rotated without a restart (issue 29's guide listed it as unsupported): a
 * token file whose lines are the accepted tokens, read again when it changes. Checked as serve
 * starts (a missing or empty file stops it, naming the file), then over real HTTP: a scraper
 * moves from the old token to the new while both are in the file, and the old one stops working
 * once it is removed — the same server throughout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, enableMetrics, sqliteStore } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { metricsPlan } from '../src/telemetry/telemetry-config.js';
import { ScriptedModel } from '../src/testing/index.js';

const folder = mkdtempSync(join(tmpdir(), 'wardrik-metrics-tokens-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const OLD = 'old-metrics-token-0123456789';
const NEW = 'new-metrics-token-9876543210';

describe('a metrics token file', () => {
  it('is taken from the config or WARDRIK_METRICS_TOKEN_FILE, and checked as serve starts', () => {
    const file = join(folder, 'plan-tokens');
    writeFileSync(file, `${OLD}\n`);
    expect(metricsPlan({ metrics: { tokenFile: file } }, {})).toEqual({ tokenFile: file });
    expect(metricsPlan(undefined, { WARDRIK_METRICS_TOKEN_FILE: file })).toEqual({ tokenFile: file });
    expect(() => metricsPlan(undefined, { WARDRIK_METRICS_TOKEN: OLD, WARDRIK_METRICS_TOKEN_FILE: file })).toThrow(
      'WARDRIK_METRICS_TOKEN and WARDRIK_METRICS_TOKEN_FILE: set one, not both',
    );
    const missing = join(folder, 'missing');
    expect(() => metricsPlan({ metrics: { tokenFile: missing } }, {})).toThrow(
      new RegExp(`metrics token file ${missing}: ENOENT`),
    );
    const short = join(folder, 'short');
    writeFileSync(short, 'short\n\n');
    expect(() => metricsPlan({ metrics: { tokenFile: short } }, {})).toThrow(
      `metrics token file ${short}: no token of at least 16 characters in it`,
    );
  });

  it('rotates without a restart: old and new accepted while both are in it, then only the new', async () => {
    const file = join(folder, 'tokens');
    writeFileSync(file, `${OLD}\n`);
    const store = sqliteStore(join(folder, 'wardrik.db'));
    const agent = defineAgent({ name: 'a', instructions: '', model: new ScriptedModel([{ text: 'ok' }]) });
    const wardrik = await createWardrik({ store, agents: [agent] });
    let server: RunningServer | undefined;
    try {
      server = await startServer({
        wardrik,
        auth: new AuthService(store),
        port: 0,
        metrics: { source: enableMetrics(wardrik), tokenFile: file },
      });
      const url = `${server.url}/metrics`;
      const scrape = async (token: string) => {
        const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        const text = await response.text();
        return { status: response.status, metrics: text.includes('wardrik_') };
      };
      expect(await scrape(OLD)).toEqual({ status: 200, metrics: true });
      expect((await scrape(NEW)).status).toBe(401);

      writeFileSync(file, `${OLD}\n${NEW}\n`); // the new token beside the old
      expect(await scrape(NEW)).toEqual({ status: 200, metrics: true });
      expect(await scrape(OLD)).toEqual({ status: 200, metrics: true });

      writeFileSync(file, `${NEW}\n`); // the scrapers moved: the old one goes
      expect((await scrape(OLD)).status).toBe(401);
      expect(await scrape(NEW)).toEqual({ status: 200, metrics: true });
      expect((await scrape('')).status).toBe(401);

      rmSync(file); // unreadable: nothing is accepted until it is back
      expect((await scrape(NEW)).status).toBe(401);
      writeFileSync(file, `${NEW}\n`);
      expect((await scrape(NEW)).status).toBe(200);
    } finally {
      await server?.close();
      await wardrik.close();
    }
  });
});
