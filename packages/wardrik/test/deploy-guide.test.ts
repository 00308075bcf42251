/*
 * docs/deploy.md, run (issue 29 item 5): every shell block of the guide is a step, and each step
 * runs here against real parts, in the order a reader takes them, in an app folder serving the
 * guide's config (docs/deploy/wardrik.config.ts) with an example agent that parks:
 * - one node on SQLite: tokens, `wardrik serve`, the probes, a run, tokens rotated and revoked,
 *   /metrics, a run exported, a backup while it serves, a restore, behind Caddy (the guide's
 *   Caddyfile): event streams unbuffered, /mcp by the public name, WebSocket upgrades;
 * - two nodes on PostgreSQL (a fresh database on the test server): `wardrik migrate`, a run
 *   answered on the other node, behind nginx (the guide's nginx.conf): an MCP session's requests
 *   kept on one node; pg_dump, pg_restore into an empty database, a node on the restored one;
 * - what the guide says of upgrades: nodes wait for one another's migration (an advisory lock)
 *   without listening, each step is applied once, a store newer than the code is refused;
 * - the files: `caddy validate`, `nginx -t`, `systemd-analyze verify`, the Kubernetes manifest's
 *   probes, ports and grace period against the code's defaults, the sizing figures against
 *   BENCHMARKS.md.
 * Needs curl, jq, openssl, caddy, nginx, pg_dump/pg_restore/psql, sqlite3 and systemd-analyze
 * (Debian: apt-get install -y caddy nginx jq sqlite3 postgresql-client).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { EXAMPLE_CONFIG } from '../src/cli/example-config.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../src/config/load-config.js';
import { POSTGRES_SCHEMA_VERSION } from '../src/store/postgres/migrations.js';
import { SQLITE_SCHEMA_VERSION } from '../src/store/sqlite/migrations.js';
import { repoRoot, tmpRoot } from './cli-process.js';
import {
  type Background,
  curlThrough,
  DEPLOY,
  freePort,
  GUIDE,
  GuideShell,
  guideBlocks,
  nginxArguments,
  nginxConfig,
  openThrough,
  PROXY_SITE,
  type ProxySetup,
  spawnGroup,
  startCaddy,
  until,
  untilReady,
} from './deploy-guide.js';
import { TEST_DATABASE_URL } from './store-factories.js';

const guide = readFileSync(GUIDE, 'utf8');
const { steps, typescript } = guideBlocks(guide);

/** How long `serve` gives its telemetry to export when it stops (serve-stop.ts, not exported). */
const TELEMETRY_FLUSH_MS = Number(
  /const TELEMETRY_FLUSH_MS = ([\d_]+);/
    .exec(readFileSync(join(repoRoot, 'packages/wardrik/src/cli/commands/serve-stop.ts'), 'utf8'))?.[1]
    ?.replaceAll('_', ''),
);

/** `value`, or a failure naming what is missing. */
function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`missing: ${what}`);
  return value;
}

/** A tool the test needs, or a clear error saying how to get it. */
function requireTool(command: string, versionArgs: readonly string[], install: string): void {
  const run = spawnSync(command, versionArgs, { encoding: 'utf8' });
  if (run.error) throw new Error(`${command} could not be run (${run.error.message}): ${install}`);
}

/** A database of its own on the test server, named after this run. */
function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const databases = {
  main: `wardrik_guide_${suffix}`,
  restored: `wardrik_guide_restored_${suffix}`,
  upgrade: `wardrik_guide_upgrade_${suffix}`,
};

let admin: pg.Client;
let scratch: string;
let app: string;
let shell: GuideShell;
const running: Background[] = [];

beforeAll(async () => {
  requireTool('curl', ['--version'], 'apt-get install -y curl');
  requireTool('jq', ['--version'], 'apt-get install -y jq');
  requireTool('openssl', ['version'], 'apt-get install -y openssl');
  requireTool('caddy', ['version'], 'apt-get install -y caddy');
  requireTool('nginx', ['-v'], 'apt-get install -y nginx');
  requireTool('pg_dump', ['--version'], 'apt-get install -y postgresql-client');
  requireTool('sqlite3', ['--version'], 'apt-get install -y sqlite3');
  requireTool('systemd-analyze', ['--version'], 'apt-get install -y systemd');

  mkdirSync(tmpRoot, { recursive: true });
  scratch = mkdtempSync(join(tmpRoot, 'deploy-guide-'));
  // The app's folder: the guide's config, and an example agent (wardrik init's) as "your agents".
  app = join(scratch, 'app');
  mkdirSync(join(app, 'backups'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(join(app, 'example.config.ts'), EXAMPLE_CONFIG);
  writeFileSync(
    join(app, 'agents.ts'),
    "import example from './example.config.ts';\n\nexport const agents = example.agents;\n",
  );
  writeFileSync(join(app, 'wardrik.config.ts'), readFileSync(join(DEPLOY, 'wardrik.config.ts'), 'utf8'));

  admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  for (const name of Object.values(databases)) await admin.query(`CREATE DATABASE ${name}`);

  shell = new GuideShell({
    cwd: app,
    scratch,
    steps,
    env: {
      PORT: String(await freePort()),
      PORT_B: String(await freePort()),
      BACKUPS: join(app, 'backups'),
    },
  });
}, 120_000);

afterAll(async () => {
  for (const process of running) await process.stop('SIGKILL');
  if (admin) {
    for (const name of Object.values(databases)) {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    }
    await admin.end();
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 120_000);

/** Starts a step that keeps running (a node) and waits until it is ready on `port`. */
async function startNode(name: string, port: number, env: Record<string, string> = {}): Promise<Background> {
  const node = shell.start(name, env);
  running.push(node);
  await untilReady(node, port);
  return node;
}

function port(name: 'PORT' | 'PORT_B'): number {
  return Number(shell.env[name]);
}

/** Calls a node's API with the admin token the guide's first step made. */
async function api(nodePort: number, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${nodePort}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${shell.env['WARDRIK_TOKEN']}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** The parts of docs/deploy/kubernetes.yaml the test reads. */
interface Probe {
  readonly httpGet: { readonly path: string; readonly port: number | string };
}
interface Container {
  readonly command: string[];
  readonly args: string[];
  readonly ports?: Array<{ readonly name: string; readonly containerPort: number }>;
  readonly env: Array<{
    readonly name: string;
    readonly valueFrom?: { readonly secretKeyRef?: { name: string; key: string } };
  }>;
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
}
interface Manifest {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly annotations?: Record<string, string> };
  readonly stringData?: Record<string, string>;
  readonly spec: {
    readonly strategy?: { readonly type: string };
    readonly selector?: Record<string, unknown> & { readonly matchLabels?: Record<string, string> };
    readonly template?: {
      readonly spec: {
        readonly terminationGracePeriodSeconds: number;
        readonly initContainers: Container[];
        readonly containers: Container[];
      };
    };
    readonly ports?: Array<{ readonly targetPort: string | number }>;
    readonly rules?: Array<{
      readonly host: string;
      readonly http: {
        readonly paths: Array<{
          readonly path: string;
          readonly backend: { readonly service: { readonly name: string } };
        }>;
      };
    }>;
  };
}

/** Starts a run of the example agent through the API; resolves once it has parked (a refund over 100). */
async function parkedRun(nodePort: number): Promise<{ runId: string; lastSeq: number }> {
  const started = await api(nodePort, '/v1/runs', { agent: 'support', input: 'Please refund order B2', wait: true });
  expect(started.json.status).toBe('parked');
  const run = await api(nodePort, `/v1/runs/${started.json.runId}`);
  return { runId: started.json.runId, lastSeq: run.json.journal.at(-1).seq };
}

/** What a reverse proxy must do for Wardrik, checked through it (listening on `httpsPort`) against the node on `nodePort`. */
async function checkProxy(httpsPort: number, nodePort: number): Promise<void> {
  const token = shell.env['WARDRIK_TOKEN'] as string;
  await until('the proxy to send /v1/ready through', () => {
    try {
      return curlThrough(httpsPort, '/v1/ready').status === 200;
    } catch {
      return false;
    }
  });
  // Event streams unbuffered: events written after the stream opened reach the client while it
  // stays open (the inbox: a park opened by a run started meanwhile), and so does every record of
  // a parked run's stream.
  const inbox = openThrough(httpsPort, '/v1/inbox/events', { headers: { authorization: `Bearer ${token}` } });
  try {
    expect(await inbox.waitFor('event: ready')).toMatch(/content-type: text\/event-stream/i);
    const { runId, lastSeq } = await parkedRun(nodePort);
    await inbox.waitFor(runId);
    const stream = openThrough(httpsPort, `/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await stream.waitFor(`id: ${lastSeq}\n`).finally(() => stream.stop());
  } finally {
    await inbox.stop();
  }
  // /mcp by the public name: the config's allowedHosts and publicUrl.
  const metadata = curlThrough(httpsPort, '/.well-known/oauth-protected-resource/mcp');
  expect(JSON.parse(metadata.body).resource).toBe(`https://${PROXY_SITE}/mcp`);
  const direct = await fetch(`http://127.0.0.1:${nodePort}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(direct.status).toBe(403); // Host 127.0.0.1 is not the public name
  // WebSocket upgrades (workers) pass.
  const worker = openThrough(httpsPort, '/v1/workers', {
    http1: true,
    headers: {
      authorization: `Bearer ${token}`,
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    },
  });
  await worker.waitFor(' 101 ').finally(() => worker.stop());
  // /metrics is not served through the public name.
  const metrics = curlThrough(httpsPort, '/metrics', {
    headers: { authorization: `Bearer ${shell.env['WARDRIK_METRICS_TOKEN']}` },
  });
  expect(metrics.status).toBe(404);
}

/** An MCP session opened through the proxy, then `requests` tools/list calls of it: how many answered 200. */
function mcpSessionThrough(httpsPort: number, requests: number): { answered: number; sessionId: string } {
  const headers = {
    authorization: `Bearer ${shell.env['WARDRIK_TOKEN']}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const initialized = curlThrough(httpsPort, '/mcp', {
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'deploy-guide', version: '1' } },
    }),
  });
  expect(initialized.status).toBe(200);
  const sessionId = initialized.headers['mcp-session-id'] as string;
  expect(sessionId).toBeTruthy();
  const session = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
  curlThrough(httpsPort, '/mcp', {
    headers: session,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  let answered = 0;
  for (let id = 2; id < 2 + requests; id++) {
    const listed = curlThrough(httpsPort, '/mcp', {
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
    });
    if (listed.status === 200 && listed.body.includes('"support"')) answered += 1;
  }
  return { answered, sessionId };
}

async function proxySetup(name: string): Promise<ProxySetup> {
  const directory = join(scratch, name);
  mkdirSync(directory, { recursive: true });
  return { directory, httpPort: await freePort(), httpsPort: await freePort() };
}

describe('the guide and its files', () => {
  it('has a step in every shell block, and its config is docs/deploy/wardrik.config.ts', () => {
    expect(steps.length).toBeGreaterThan(10);
    expect(typescript).toEqual([readFileSync(join(DEPLOY, 'wardrik.config.ts'), 'utf8')]);
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(readme.includes('](docs/deploy.md)'), 'the README links docs/deploy.md').toBe(true);
  });

  it('quotes what the code says, and what it reads of a request is so', () => {
    const source = (path: string) => readFileSync(join(repoRoot, 'packages/wardrik/src', path), 'utf8');
    for (const detail of [
      'starting: migrating the store and recovering runs',
      'stopping: this node drains its runs and takes no new work',
    ]) {
      expect(guide.replaceAll('\n', ' ')).toContain(detail);
      expect(source('server/probe-routes.ts')).toContain(detail);
    }
    // The guide's `migrating … failed at version N (name): …`, as the code writes it.
    expect(source('store/postgres/migrations.ts')).toMatch(
      /failed at version \$\{next\.version\} \(\$\{next\.name\}\): /,
    );
    // "Wardrik reads no X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host, Forwarded or X-Real-IP header".
    const reads = spawnSync('grep', ['-rliE', `x-forwarded|x-real-ip|remoteaddress|conninfo|['"]forwarded['"]`, '.'], {
      cwd: join(repoRoot, 'packages/wardrik/src'),
      encoding: 'utf8',
    });
    expect(reads.stdout).toBe('');
    expect(reads.status).toBe(1); // grep found nothing (2 would be an error)
  });

  it('links only to files that exist', () => {
    for (const [, target] of guide.matchAll(/\]\(((?:\.\.\/|deploy\/)[^)#]+)(?:#[^)]*)?\)/g)) {
      expect(existsSync(join(repoRoot, 'docs', target as string)), target).toBe(true);
    }
  });

  it('the Caddyfile is valid (caddy validate)', () => {
    const validated = spawnSync(
      'caddy',
      ['validate', '--config', join(DEPLOY, 'Caddyfile'), '--adapter', 'caddyfile'],
      { encoding: 'utf8', env: { ...process.env, HOME: scratch, XDG_DATA_HOME: scratch, XDG_CONFIG_HOME: scratch } },
    );
    expect(`${validated.stdout}${validated.stderr}`).toContain('Valid configuration');
    expect(validated.status).toBe(0);
    // Formatted as caddy fmt writes it (a Caddyfile that is not warns on every start).
    const formatted = spawnSync('caddy', ['fmt', join(DEPLOY, 'Caddyfile')], { encoding: 'utf8' });
    expect(formatted.stdout).toBe(readFileSync(join(DEPLOY, 'Caddyfile'), 'utf8'));
  });

  it('nginx.conf is valid (nginx -t, with this machine’s ports and a certificate of the test’s)', async () => {
    const setup = await proxySetup('nginx-t');
    const main = nginxConfig(setup, [4000, 4001]);
    const checked = spawnSync('nginx', ['-t', ...nginxArguments(setup, main)], { encoding: 'utf8' });
    expect(checked.stderr).toContain('test is successful');
    expect(checked.stderr).not.toContain('[warn]');
    expect(checked.status).toBe(0);
  });

  it('the systemd unit is valid (systemd-analyze verify), and stops after the grace period', () => {
    const unit = readFileSync(join(DEPLOY, 'wardrik.service'), 'utf8');
    // verify needs ExecStart's program to exist: the copy names this machine's node instead.
    const directory = join(scratch, 'systemd');
    mkdirSync(directory, { recursive: true });
    const copy = join(directory, 'wardrik.service');
    writeFileSync(copy, unit.replace('/srv/wardrik/node_modules/.bin/wardrik ', `${process.execPath} `));
    const verified = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    expect(verified.stderr).toBe('');
    expect(verified.status).toBe(0);
    const stopSeconds = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    expect(stopSeconds * 1000).toBeGreaterThan(DEFAULT_SHUTDOWN_GRACE_MS + TELEMETRY_FLUSH_MS);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^ExecStart=.* serve --port 4000 /m);
  });

  it('the Kubernetes manifest: probes on /v1/live and /v1/ready at the port serve listens on, the grace period above the drain, secrets from the Secret', () => {
    const documents = parseAllDocuments(readFileSync(join(DEPLOY, 'kubernetes.yaml'), 'utf8')).map((document) => {
      expect(document.errors).toEqual([]);
      return document.toJS() as Manifest;
    });
    const byKind = (kind: string): Manifest => {
      const found = documents.find((document) => document.kind === kind);
      if (!found) throw new Error(`docs/deploy/kubernetes.yaml has no ${kind}`);
      return found;
    };
    const secret = byKind('Secret');
    const deployment = byKind('Deployment');
    const pod = defined(deployment.spec.template, "the Deployment's pod template").spec;
    const container = defined(pod.containers[0], 'a container');
    const args = container.args;
    const option = (name: string) => args[args.indexOf(name) + 1];
    expect(args[0]).toBe('serve');
    expect(option('--host')).toBe('0.0.0.0'); // the config's default, 127.0.0.1, is not reachable from the kubelet
    const listens = Number(option('--port'));
    const named = defined(
      container.ports?.find((entry) => entry.containerPort === listens),
      `a container port ${listens}, where serve listens`,
    );
    const probePort = (probe: Probe | undefined) => {
      const port = defined(probe, 'a probe').httpGet.port;
      return typeof port === 'number' ? port : port === named.name ? named.containerPort : undefined;
    };
    expect(container.livenessProbe?.httpGet.path).toBe('/v1/live');
    expect(container.readinessProbe?.httpGet.path).toBe('/v1/ready');
    expect(probePort(container.livenessProbe)).toBe(listens);
    expect(probePort(container.readinessProbe)).toBe(listens);
    // The pod's grace covers the drain (the config's shutdownGraceMs: the default) and the telemetry export.
    const drainMs = args.includes('--shutdown-grace-ms')
      ? Number(option('--shutdown-grace-ms'))
      : DEFAULT_SHUTDOWN_GRACE_MS;
    expect(guide).toContain(`shutdownGraceMs: ${DEFAULT_SHUTDOWN_GRACE_MS.toLocaleString('en').replace(',', '_')}`);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainMs + TELEMETRY_FLUSH_MS);
    // Migrated before the node starts.
    expect(pod.initContainers[0]?.args).toEqual(['migrate']);
    // The bin itself (not npx or npm start, which stand between SIGTERM and the node).
    for (const each of [...pod.initContainers, ...pod.containers]) {
      expect(each.command).toEqual(['/app/node_modules/.bin/wardrik']);
    }
    // Every secret a container reads is in the Secret.
    for (const each of [...pod.initContainers, ...pod.containers]) {
      for (const variable of each.env) {
        const reference = variable.valueFrom?.secretKeyRef;
        if (!reference) continue;
        expect(reference.name).toBe(secret.metadata.name);
        expect(Object.keys(secret.stringData ?? {})).toContain(reference.key);
      }
    }
    expect(container.env.map((variable) => variable.name)).toContain('WARDRIK_DATABASE_URL');
    expect(deployment.spec.strategy?.type).toBe('Recreate');
    // The Services reach that port of the Deployment's pods; the Ingresses say what nginx.conf says.
    const services = documents.filter((document) => document.kind === 'Service');
    for (const service of services) {
      expect(service.spec.selector).toEqual(deployment.spec.selector?.matchLabels);
      expect(service.spec.ports?.[0]?.targetPort).toBe(named.name);
    }
    const nginx = readFileSync(join(DEPLOY, 'nginx.conf'), 'utf8');
    expect(nginx).toContain('proxy_buffering off;');
    expect(nginx).toContain('proxy_read_timeout 1h;');
    expect(nginx).toContain('proxy_send_timeout 1h;');
    expect(nginx).toMatch(/upstream wardrik_mcp \{\n(?:\s*#.*\n)*\s*hash \$http_authorization consistent;/);
    expect(nginx).toMatch(/location \/mcp \{\n\s*proxy_pass http:\/\/wardrik_mcp;/);
    const ingresses = documents.filter((document) => document.kind === 'Ingress');
    const paths = ingresses.map((ingress) => {
      const annotations = ingress.metadata.annotations ?? {};
      expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
      expect(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout']).toBe('3600');
      expect(annotations['nginx.ingress.kubernetes.io/proxy-send-timeout']).toBe('3600');
      expect(nginx).toContain(`client_max_body_size ${annotations['nginx.ingress.kubernetes.io/proxy-body-size']};`);
      const rule = defined(ingress.spec.rules?.[0], 'an Ingress rule');
      expect(rule.host).toBe(PROXY_SITE);
      const path = defined(rule.http.paths[0], 'an Ingress path');
      expect(services.map((service) => service.metadata.name)).toContain(path.backend.service.name);
      // /mcp by the client's token, on a Service of its own (ingress-nginx balances by Service); the rest spread.
      const hash = annotations['nginx.ingress.kubernetes.io/upstream-hash-by'];
      expect(hash).toBe(path.path === '/mcp' ? '$http_authorization' : undefined);
      return path.path;
    });
    expect(paths.sort()).toEqual(['/', '/mcp']);
    expect(new Set(ingresses.map((ingress) => ingress.spec.rules?.[0]?.http.paths[0]?.backend.service.name)).size).toBe(
      2,
    );
  });

  it('quotes its sizing figures and commands from BENCHMARKS.md, and the current schema versions', () => {
    const benchmarks = readFileSync(join(repoRoot, 'BENCHMARKS.md'), 'utf8');
    const sizing = guide.slice(guide.indexOf('## Sizing'), guide.indexOf('## Telemetry'));
    const rows = sizing
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| what') && !line.startsWith('| ---'));
    expect(rows.length).toBeGreaterThan(8);
    for (const row of rows) {
      const [, figure = '', source = ''] = row.split(' | ');
      for (const number of figure.replace(/p\d\d/g, '').match(/−?\d[\d,]*(\.\d+)?/g) ?? []) {
        expect(benchmarks, `${number} (${row})`).toContain(number);
      }
      const command = /`(npm run bench -- \w+)`/.exec(source)?.[1];
      expect(command, row).toBeDefined();
      expect(benchmarks).toContain(command);
      const section = /\*([^*]+)\*/.exec(source)?.[1];
      expect(benchmarks).toContain(`## ${section}`);
    }
    expect(guide).toContain(`SQLite ${SQLITE_SCHEMA_VERSION} and\nPostgreSQL ${POSTGRES_SCHEMA_VERSION}`);
    expect(guide).toContain(`schema version ${SQLITE_SCHEMA_VERSION}.\``);
  });
});

describe('one node on SQLite behind Caddy', () => {
  let node: Background;
  let caddy: Background;
  let beforeBackup: string;
  let afterBackup: string;

  it('tokens before the first start, then serve: it makes no admin of its own', async () => {
    await shell.run('admin-token');
    expect(shell.env['WARDRIK_TOKEN']).toMatch(/^wdk_/);
    await shell.run('metrics-token');
    expect(shell.env['WARDRIK_METRICS_TOKEN']?.length).toBeGreaterThanOrEqual(16);
    node = await startNode('serve', port('PORT'));
    expect(node.output.stdout).toContain('An admin exists');
    expect(existsSync(join(app, '.wardrik', 'admin-token'))).toBe(false);
  }, 180_000);

  it('the probes, a first run answered, tokens made, rotated and revoked, metrics', async () => {
    const probes = await shell.run('probes');
    expect(probes.stdout).toBe('{"status":"live"}{"status":"ready"}');
    const first = await shell.run('first-run');
    expect(first.stdout).toMatch(/Refunded/);
    const made = await shell.run('tokens');
    const firstBillingToken = /wdk_[\w-]+/.exec(made.stdout)?.[0];
    await shell.run('tokens-rotate');
    // billing-app has two tokens now: the first revoked, the second not.
    const listed = execFileSync('wardrik', ['tokens', 'list', '--json'], {
      cwd: app,
      env: shell.env,
      encoding: 'utf8',
    });
    const billingTokens = (
      JSON.parse(listed) as Array<{ principal: { name: string }; revokedAt?: number; expiresAt?: number }>
    ).filter((token) => token.principal.name === 'billing-app');
    expect(billingTokens.map((token) => token.revokedAt !== undefined)).toEqual([true, false]);
    // Both made with --expires-in 90d.
    for (const token of billingTokens) expect(token.expiresAt).toBeGreaterThan(Date.now() + 89 * 86_400_000);
    const old = await fetch(`http://127.0.0.1:${port('PORT')}/v1/me`, {
      headers: { authorization: `Bearer ${firstBillingToken}` },
    });
    expect(old.status).toBe(401);
    expect(await old.text()).toContain('token revoked');
    const metrics = await shell.run('metrics');
    expect(metrics.stdout).toMatch(/^wardrik_runs_started_total\{agent="support"\} 1$/m);
  }, 240_000);

  it('behind Caddy: streams unbuffered, /mcp by the public name, WebSocket upgrades, no /metrics', async () => {
    const setup = await proxySetup('caddy');
    caddy = startCaddy(setup, [port('PORT')]);
    running.push(caddy);
    await checkProxy(setup.httpsPort, port('PORT'));
    const { answered } = mcpSessionThrough(setup.httpsPort, 3);
    expect(answered).toBe(3);
  }, 180_000);

  it('a run exported, purged by hand; a backup while it serves; restored, it holds what the backup held', async () => {
    await shell.run('export-purge');
    const exports = readFileSync(
      join(app, 'backups', `${(await api(port('PORT'), '/v1/runs?status=completed&limit=1')).json.runs[0].id}.jsonl`),
      'utf8',
    ).split('\n');
    expect(JSON.parse(exports[0] as string)).toMatchObject({ format: 'wardrik-run-export', version: 1 });
    beforeBackup = (await parkedRun(port('PORT'))).runId;
    const backup = await shell.run('sqlite-backup');
    expect(backup.stdout).toMatch(new RegExp(`: \\d+ runs, \\d+ bytes, schema version ${SQLITE_SCHEMA_VERSION}\\.`));
    afterBackup = (await parkedRun(port('PORT'))).runId;
    // Stop it (SIGTERM, as systemctl stop does): it exits 0.
    expect(await node.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    await shell.run('sqlite-restore');
    node = await startNode('serve', port('PORT'));
    const runs = await shell.run('runs-after-restore');
    expect(runs.stdout).toContain(beforeBackup);
    expect(runs.stdout).not.toContain(afterBackup);
    expect((await shell.run('sqlite-schema-version')).stdout.trim()).toBe(String(SQLITE_SCHEMA_VERSION));
    expect(await node.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    await caddy.stop('SIGTERM');
  }, 240_000);
});

describe('two nodes on PostgreSQL behind nginx', () => {
  let nodeA: Background;
  let nodeB: Background;
  let answeredRun: string;

  it('migrate, the admin token, two nodes; a run started on one is answered on the other', async () => {
    shell.env['WARDRIK_DATABASE_URL'] = databaseUrl(databases.main);
    shell.env['RESTORE_URL'] = databaseUrl(databases.restored);
    const migrated = await shell.run('migrate');
    expect(migrated.stdout).toMatch(/^The schema of PostgreSQL, .* is up to date\.$/m);
    await shell.run('admin-token');
    nodeA = await startNode('serve', port('PORT'));
    nodeB = await startNode('serve-second-node', port('PORT_B'));
    const across = await shell.run('across-nodes');
    expect(across.stdout).toMatch(/Refunded/);
    const runs = await api(port('PORT_B'), '/v1/runs?status=completed');
    answeredRun = runs.json.runs[0].id;
    expect(runs.json.runs).toHaveLength(1);
  }, 240_000);

  it('behind nginx: streams unbuffered, /mcp by the public name and an MCP session kept on one node, WebSocket upgrades', async () => {
    const setup = await proxySetup('nginx');
    const main = nginxConfig(setup, [port('PORT'), port('PORT_B')]);
    const nginx = spawnGroup('nginx', [...nginxArguments(setup, main), '-g', 'daemon off;'], {
      cwd: setup.directory,
      env: process.env,
    });
    running.push(nginx);
    await checkProxy(setup.httpsPort, port('PORT'));
    // Round-robin, or a hash of Mcp-Session-Id, sends about half of the sessions elsewhere than their node (404).
    for (let session = 0; session < 4; session++) {
      expect(mcpSessionThrough(setup.httpsPort, 4).answered).toBe(4);
    }
    await nginx.stop('SIGTERM');
  }, 180_000);

  it('behind Caddy with both nodes: an MCP session kept on one node', async () => {
    const setup = await proxySetup('caddy-nodes');
    const caddy = startCaddy(setup, [port('PORT'), port('PORT_B')]);
    running.push(caddy);
    await until('Caddy to send /v1/ready through', () => {
      try {
        return curlThrough(setup.httpsPort, '/v1/ready').status === 200;
      } catch {
        return false;
      }
    });
    for (let session = 0; session < 4; session++) {
      expect(mcpSessionThrough(setup.httpsPort, 4).answered).toBe(4);
    }
    await caddy.stop('SIGTERM');
  }, 180_000);

  it('the schema version; pg_dump while they serve, then pg_restore into an empty database and a node on it', async () => {
    expect((await shell.run('pg-schema-version')).stdout.trim()).toBe(String(POSTGRES_SCHEMA_VERSION));
    await shell.run('pg-backup');
    expect(await nodeA.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    await shell.run('pg-restore');
    nodeA = await startNode('serve', port('PORT'), { WARDRIK_DATABASE_URL: shell.env['RESTORE_URL'] as string });
    const runs = await shell.run('runs-after-restore');
    expect(runs.stdout).toContain(answeredRun);
    expect(await nodeA.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(await nodeB.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 240_000);
});

describe('upgrading, as the guide says', () => {
  it('a node waits (not listening) while another holds the migration lock; each step is applied once; a newer store is refused', async () => {
    const url = databaseUrl(databases.upgrade);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      // The key the migrations lock, for a store without a schema of its own (migrations.ts).
      await holder.query(`SELECT pg_advisory_lock(hashtextextended('wardrik migrations ' || current_schema(), 0))`);
      const env = { ...shell.env, WARDRIK_DATABASE_URL: url };
      const nodePort = await freePort();
      const migrate = spawnGroup('wardrik', ['migrate'], { cwd: app, env });
      const node = spawnGroup('wardrik', ['serve', '--port', String(nodePort)], { cwd: app, env });
      running.push(migrate, node);
      const waiting = async () =>
        (
          await admin.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
            [databases.upgrade],
          )
        ).rows[0].n as number;
      await until('both to wait for the migration lock', async () => (await waiting()) === 2, 120_000);
      const live = await fetch(`http://127.0.0.1:${nodePort}/v1/live`).then(
        (response) => response.status,
        (thrown: { cause?: { code?: string } }) => thrown.cause?.code,
      );
      expect(live).toBe('ECONNREFUSED');
      await holder.query(`SELECT pg_advisory_unlock_all()`);
      expect(await migrate.exited).toEqual({ code: 0, signal: null });
      await untilReady(node, nodePort);
      const applied = await holder.query(
        'SELECT version, count(*)::int AS n FROM migrations GROUP BY version ORDER BY version',
      );
      expect(applied.rows).toEqual(
        Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, index) => ({ version: index + 1, n: 1 })),
      );
      expect(await node.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      // A store a newer version migrated: this version refuses it, as the guide quotes.
      await holder.query(`INSERT INTO migrations (version, name) VALUES ($1, 'from a newer version')`, [
        POSTGRES_SCHEMA_VERSION + 1,
      ]);
      const refused = spawnSync('wardrik', ['migrate'], { cwd: app, env, encoding: 'utf8' });
      expect(refused.status).toBe(1);
      const quoted =
        /`the database … (has schema version \d+, but this code knows versions up to \d+: upgrade Wardrik to\nopen it)`/
          .exec(guide)?.[1]
          ?.replace('\n', ' ');
      expect(quoted).toBe(
        `has schema version ${POSTGRES_SCHEMA_VERSION + 1}, but this code knows versions up to ${POSTGRES_SCHEMA_VERSION}: upgrade Wardrik to open it`,
      );
      expect(refused.stderr).toContain(quoted);
    } finally {
      await holder.end();
    }
  }, 240_000);
});

describe('every step', () => {
  it('of the guide was run', () => {
    expect([...shell.ran].sort()).toEqual(steps.map((step) => step.name).sort());
  });
});
