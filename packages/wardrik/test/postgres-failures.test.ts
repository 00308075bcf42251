/*
 * PostgreSQL faults (issue 13): a server that can't be reached gives a clear StoreError naming the
 * URL without its password; a server lost while running fails the store (crash-only) and loses
 * nothing that was acknowledged as durable; a read is tried again across a dropped connection.
 * The server is "lost" through a real TCP proxy in front of the real PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { inspect } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../src/errors.js';
import { redactUrl } from '../src/store/postgres/connection.js';
import { postgresStore } from '../src/store/postgres/postgres-store.js';
import type { RunRow } from '../src/store/store.js';
import { until } from './helpers.js';
import { dropTestSchema, openPostgresTestStore, TEST_DATABASE_URL, testSchemaName } from './store-factories.js';

const PASSWORD = 'sekret-Passw0rd-9137';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

/** A TCP proxy to the test PostgreSQL that can drop every connection and refuse new ones. */
class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #mode: 'forward' | 'refuse' = 'forward';
  refused = 0;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<TcpProxy> {
    const target = new URL(TEST_DATABASE_URL);
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, target));
    proxy = new TcpProxy(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => proxy.close());
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  accept(client: Socket, target: URL): void {
    if (this.#mode === 'refuse') {
      this.refused += 1;
      client.destroy();
      return;
    }
    const upstream = tcpConnect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        this.#sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }

  /** Drops every connection and refuses new ones (the server is "down"). */
  down(): void {
    this.#mode = 'refuse';
    for (const socket of this.#sockets) socket.destroy();
  }

  up(): void {
    this.#mode = 'forward';
  }

  close(): Promise<void> {
    this.down();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** The test database's URL through `port`, with a password (trust auth ignores it). */
function urlWithPassword(port: number, database = new URL(TEST_DATABASE_URL).pathname.slice(1)): string {
  const url = new URL(TEST_DATABASE_URL);
  url.password = PASSWORD;
  url.port = String(port);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Everything an error shows, its causes included. */
function everything(error: unknown): string {
  return `${String(error)}\n${inspect(error, { depth: 10, showHidden: true })}\n${JSON.stringify(error)}`;
}

function row(id: string): RunRow {
  return {
    id,
    agent: 'support',
    principal: 'alice',
    status: 'running',
    createdAt: 1,
    updatedAt: 1,
    measures: {},
    labels: [],
  };
}

function record(runId: string, seq: number) {
  return {
    runId,
    seq,
    record: { type: 'labels-released', v: 1, at: seq, labels: [], by: 'bob', reason: 'test' },
  } as const;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

describe('PostgresStore faults', () => {
  it('a server that cannot be reached: a clear StoreError naming the URL without its password', async () => {
    const url = urlWithPassword(1); // nothing listens on port 1
    const store = postgresStore(url, { schema: testSchemaName() });
    cleanup.push(() => store.close());
    const shown = url.replace(PASSWORD, '***');
    expect(store.location).toBe(shown);

    const error = await rejection(store.migrate());
    expect(StoreError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`failed on PostgreSQL ${shown}:`);
    expect(error.message).toMatch(/ECONNREFUSED.*is the PostgreSQL server running/);
    expect(everything(error)).not.toContain(PASSWORD);
    const read = await rejection(store.getRun('r1'));
    expect(read.message).toContain(shown);
    expect(everything(read)).not.toContain(PASSWORD);
  });

  it('never shows the password: a missing database, a pool configuration, a malformed URL', async () => {
    const missing = postgresStore(urlWithPassword(5432, 'wardrik_no_such_database'));
    cleanup.push(() => missing.close());
    const error = await rejection(missing.migrate());
    expect(error.message).toMatch(/wardrik_no_such_database.*\(3D000\): the database does not exist/);
    expect(error.message).toContain('postgres://postgres:***@127.0.0.1:5432/wardrik_no_such_database');
    expect(everything(error)).not.toContain(PASSWORD);

    const configured = postgresStore({
      host: '127.0.0.1',
      port: 1,
      user: 'postgres',
      password: PASSWORD,
      database: 'test',
    });
    cleanup.push(() => configured.close());
    expect(configured.location).toBe('postgres://postgres:***@127.0.0.1:1/test');
    expect(everything(await rejection(configured.migrate()))).not.toContain(PASSWORD);

    for (const malformed of [`postgres://postgres:${PASSWORD}@[bad-host/test`, `not a url ${PASSWORD}`]) {
      let thrown: unknown;
      try {
        postgresStore(malformed);
      } catch (caught) {
        thrown = caught;
      }
      expect(StoreError.isInstance(thrown)).toBe(true);
      expect((thrown as Error).message).toMatch(/connection string is not a valid URL/);
      expect(everything(thrown)).not.toContain(PASSWORD);
    }
    expect(redactUrl(`postgres://app:${PASSWORD}@db/w?password=${PASSWORD}&sslmode=require`)).toBe(
      'postgres://app:***@db/w?password=***&sslmode=require',
    );
  });

  it('the server lost while running: the flush fails the store, and nothing durable is lost', async () => {
    const proxy = await TcpProxy.start();
    const schema = testSchemaName();
    cleanup.push(() => dropTestSchema(schema));
    const store = postgresStore(urlWithPassword(proxy.port), { schema, flushIntervalMs: 60_000 });
    cleanup.push(() => store.close());
    const failures: StoreError[] = [];
    store.onFailure((failure) => failures.push(failure));
    await store.write({ runId: 'r1', run: row('r1'), records: [record('r1', 1)] }, { durable: true });
    await store.write({ runId: 'r1', records: [record('r1', 2)] }, { durable: false }); // acknowledged, queued

    proxy.down();
    const lost = await rejection(store.write({ runId: 'r1', records: [record('r1', 3)] }, { durable: true }));
    expect(StoreError.isInstance(lost)).toBe(true);
    expect(lost.message).toMatch(
      /^writing 2 queued writes \(2 journal records\) to PostgreSQL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/test failed, so they are lost/,
    );
    expect(everything(lost)).not.toContain(PASSWORD);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBe(lost);
    await expect(store.getRun('r1')).rejects.toThrow(/failed and must be reopened/);
    await expect(store.claimRun('r1', { node: 'a', incarnation: 'a1', leaseMs: 1_000 })).rejects.toSatisfy(
      StoreError.isInstance,
    );

    // The server comes back; a new store (the restarted node) has what was committed.
    proxy.up();
    const restarted = openPostgresTestStore({ schema, keepSchema: true });
    cleanup.push(() => restarted.close());
    expect(await restarted.loadJournal('r1')).toEqual([record('r1', 1)]);
    expect(failures).toHaveLength(1);
  });

  it('a read is tried again across a dropped connection, and the store stays usable', async () => {
    const proxy = await TcpProxy.start();
    const schema = testSchemaName();
    cleanup.push(() => dropTestSchema(schema));
    const store = postgresStore(urlWithPassword(proxy.port), { schema });
    cleanup.push(() => store.close());
    await store.write({ runId: 'r1', run: row('r1'), records: [] }, { durable: true });

    proxy.down(); // the pooled connection breaks; new ones are refused until it is up again
    const reading = store.getRun('r1');
    const deadline = Date.now() + 10_000;
    while (proxy.refused === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(proxy.refused).toBeGreaterThan(0);
    proxy.up();
    expect(await reading).toEqual(row('r1'));
    await store.write({ runId: 'r1', records: [record('r1', 1)] }, { durable: true });
    expect(await store.lastSeq('r1')).toBe(1);
  });

  it('flushes on a connection of their own, opened again after it drops while idle', async () => {
    const applicationName = `wardrik_flusher_${randomBytes(4).toString('hex')}`;
    const store = openPostgresTestStore({ pool: { application_name: applicationName } });
    cleanup.push(() => store.close());
    const monitor = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await monitor.connect();
    cleanup.push(() => monitor.end());
    const backends = async () => {
      const { rows } = await monitor.query<{ pid: number; query: string }>(
        'SELECT pid, query FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      return rows;
    };
    const flusher = async () => (await backends()).filter((each) => each.query.includes('INSERT INTO journal'));
    await store.write({ runId: 'r1', run: row('r1'), records: [record('r1', 1)] }, { durable: true });
    for (let seq = 2; seq <= 20; seq += 1) {
      await store.write({ runId: 'r1', records: [record('r1', seq)] }, { durable: seq % 2 === 0 });
    }
    expect(await flusher()).toHaveLength(1); // every flush on one connection

    // The server ends every connection of the store while it is idle (a restart, a proxy timeout).
    await monitor.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
      applicationName,
    ]);
    await until(async () => (await backends()).length === 0, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the store hears its connections end
    await store.write({ runId: 'r1', records: [record('r1', 21)] }, { durable: true });
    expect(await store.lastSeq('r1')).toBe(21);
    expect(await flusher()).toHaveLength(1);
  });

  it('lockForRuntime does nothing: nodes share the store', async () => {
    const schema = testSchemaName();
    const first = openPostgresTestStore({ schema, keepSchema: true });
    const second = openPostgresTestStore({ schema });
    cleanup.push(() => second.close());
    cleanup.push(() => first.close());
    await first.lockForRuntime();
    await second.lockForRuntime();
    await first.migrate();
    await second.write({ runId: 'r1', run: row('r1'), records: [] }, { durable: true });
    expect(await first.getRun('r1')).toEqual(row('r1'));
  });
});
