import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService } from '../src/auth/auth-service.js';
import { createWardrik, defineAgent, sqliteStore, type Wardrik } from '../src/index.js';
import { type RunningServer, startServer } from '../src/server/start-server.js';
import { ScriptedModel } from '../src/testing/index.js';
import { tempDbPath } from './helpers.js';

const chat = defineAgent({
  name: 'chat',
  instructions: 'Chat.',
  model: new ScriptedModel((request) => {
    const last = request.messages.at(-1);
    return { text: `noted: ${last?.role === 'user' ? last.content : ''}` };
  }),
});

let wardrik: Wardrik;
let server: RunningServer;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};

async function api(
  path: string,
  options: { token?: string; method?: string; body?: unknown; bytes?: Uint8Array; type?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.type !== undefined) headers['content-type'] = options.type;
  const body = options.bytes ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(`${server.url}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const isJson = /json/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    json: isJson && bytes.length > 0 ? JSON.parse(new TextDecoder().decode(bytes)) : undefined,
  };
}

beforeAll(async () => {
  wardrik = await createWardrik({
    store: sqliteStore(tempDbPath()),
    agents: [chat],
    artifacts: { maxBytes: 2 * 1024 * 1024 },
  });
  const auth = new AuthService(wardrik.store);
  server = await startServer({ wardrik, auth, port: 0 });
  tokens.admin = (await auth.ensureAdmin())?.token ?? '';
  for (const [name, role] of [
    ['operator', 'operator'],
    ['alice', 'user'],
    ['bob', 'user'],
  ] as const) {
    const principal = await auth.createPrincipal({ name, role, kind: 'user', agents: ['*'] });
    ids[name] = principal.id;
    tokens[name] = (await auth.issueToken(principal.id)).token;
  }
});
afterAll(async () => {
  await server?.close();
  await wardrik?.close();
});

async function aliceSession(): Promise<string> {
  const created = await api('/v1/sessions', { token: tokens.alice, body: { agent: 'chat' } });
  return created.json.id as string;
}

describe('/v1/sessions/{id}/memory and /v1/memory', () => {
  it('adds a session to memory and searches it; others’ memories need the right role', async () => {
    const id = await aliceSession();
    await api('/v1/runs', {
      token: tokens.alice,
      body: { agent: 'chat', input: 'my parcel P9 is late', session: id, wait: true },
    });
    expect((await api(`/v1/sessions/${id}/memory`, { token: tokens.alice, method: 'POST' })).json).toEqual({
      added: 2,
    });
    expect((await api(`/v1/sessions/${id}/memory`, { token: tokens.alice, method: 'POST' })).json).toEqual({
      added: 0,
    });

    const found = await api('/v1/memory?agent=chat&query=parcel%20P9', { token: tokens.alice });
    expect(found.status).toBe(200);
    expect(found.json.memories.map((memory: { text: string }) => memory.text)).toEqual([
      'my parcel P9 is late',
      'noted: my parcel P9 is late',
    ]);
    // Bob has no memories of his own, and may not read Alice's.
    expect((await api('/v1/memory?agent=chat&query=parcel', { token: tokens.bob })).json).toEqual({ memories: [] });
    const peeking = await api(`/v1/memory?agent=chat&query=parcel&principal=${ids.alice}`, { token: tokens.bob });
    expect(peeking.status).toBe(403);
    const operator = await api(`/v1/memory?agent=chat&query=parcel&principal=${ids.alice}`, { token: tokens.operator });
    expect(operator.json.memories).toHaveLength(2);
    // Adding: Bob can't see the session; an operator may not start runs.
    expect((await api(`/v1/sessions/${id}/memory`, { token: tokens.bob, method: 'POST' })).status).toBe(403);
    expect((await api(`/v1/sessions/${id}/memory`, { token: tokens.operator, method: 'POST' })).status).toBe(403);
    expect((await api('/v1/sessions/ses_nope/memory', { token: tokens.alice, method: 'POST' })).status).toBe(404);
  });

  it('refuses empty and huge queries, naming the field', async () => {
    const empty = await api('/v1/memory?agent=chat&query=', { token: tokens.alice });
    expect(empty.status).toBe(400);
    expect(empty.json.detail).toContain('query: expected words to search for');
    const huge = await api(`/v1/memory?agent=chat&query=${'a'.repeat(1001)}`, { token: tokens.alice });
    expect(huge.status).toBe(400);
    expect(huge.json.detail).toContain('at most 1000 characters');
    const missing = await api('/v1/memory?agent=chat', { token: tokens.alice });
    expect(missing.status).toBe(400);
    expect(missing.json.errors[0].path).toBe('query.query');
    expect((await api('/v1/memory?agent=chat&query=tea&limit=51', { token: tokens.alice })).status).toBe(400);
  });
});

describe('/v1/sessions/{id}/artifacts', () => {
  it('uploads versions and downloads each byte for byte, with its media type, version and labels', async () => {
    const id = await aliceSession();
    const first = new Uint8Array(randomBytes(1024 * 1024 + 7));
    const saved = await api(`/v1/sessions/${id}/artifacts/scan.pdf?labels=outside`, {
      token: tokens.alice,
      bytes: first,
      type: 'application/pdf',
    });
    expect(saved.status).toBe(201);
    expect(saved.json).toMatchObject({ name: 'scan.pdf', version: 1, size: first.length, labels: ['outside'] });
    expect(saved.json.savedBy).toBe('person:alice');
    await api(`/v1/sessions/${id}/artifacts/scan.pdf`, {
      token: tokens.alice,
      bytes: new Uint8Array([1, 2]),
      type: 'application/pdf',
    });

    const v1 = await api(`/v1/sessions/${id}/artifacts/scan.pdf?version=1`, { token: tokens.alice });
    expect(v1.status).toBe(200);
    expect(Buffer.from(v1.bytes).equals(Buffer.from(first))).toBe(true);
    expect(v1.headers.get('content-type')).toBe('application/pdf');
    expect(v1.headers.get('wardrik-artifact-version')).toBe('1');
    expect(v1.headers.get('wardrik-labels')).toBe('outside');
    expect(v1.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''scan.pdf");
    expect(v1.headers.get('content-security-policy')).toContain('sandbox');
    const latest = await api(`/v1/sessions/${id}/artifacts/scan.pdf`, { token: tokens.alice });
    expect([...latest.bytes]).toEqual([1, 2]);

    const listed = await api(`/v1/sessions/${id}/artifacts`, { token: tokens.alice });
    expect(listed.json.artifacts.map((each: { name: string; version: number }) => [each.name, each.version])).toEqual([
      ['scan.pdf', 2],
    ]);
    const versions = await api(`/v1/sessions/${id}/artifacts/scan.pdf/versions`, { token: tokens.alice });
    expect(versions.json.versions.map((each: { version: number }) => each.version)).toEqual([1, 2]);

    // Names with spaces and user: names travel encoded.
    const spaced = encodeURIComponent('user:Q3 report.txt');
    expect(
      (
        await api(`/v1/sessions/${id}/artifacts/${spaced}`, {
          token: tokens.alice,
          bytes: new Uint8Array([65]),
          type: 'text/plain',
        })
      ).status,
    ).toBe(201);
    expect((await api(`/v1/sessions/${id}/artifacts/${spaced}`, { token: tokens.alice })).bytes).toEqual(
      new Uint8Array([65]),
    );

    expect((await api(`/v1/sessions/${id}/artifacts/scan.pdf`, { token: tokens.bob })).status).toBe(403);
    expect((await api(`/v1/sessions/${id}/artifacts/scan.pdf`, { token: tokens.operator })).status).toBe(200);
    expect((await api(`/v1/sessions/${id}/artifacts/scan.pdf`, { token: tokens.alice, method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await api(`/v1/sessions/${id}/artifacts/scan.pdf`, { token: tokens.alice })).status).toBe(404);
  });

  it('refuses path tricks, oversize bodies, missing or bad media types and unknown versions, and keeps serving', async () => {
    const id = await aliceSession();
    const put = (name: string, bytes: Uint8Array, type?: string) =>
      api(`/v1/sessions/${id}/artifacts/${name}`, { token: tokens.alice, bytes, ...(type ? { type } : {}) });
    const traversal = await put(encodeURIComponent('../../etc/passwd'), new Uint8Array([1]), 'text/plain');
    expect(traversal.status).toBe(400);
    expect(traversal.json.detail).toContain('holds a / or \\ (an artifact name is a file name, not a path)');
    const dots = await put('..%2F..%2Fx', new Uint8Array([1]), 'text/plain');
    expect(dots.status).toBe(400);
    const control = await put(encodeURIComponent('a\u0001b'), new Uint8Array([1]), 'text/plain');
    expect(control.json.detail).toContain('control character');
    const big = await put('big.bin', new Uint8Array(2 * 1024 * 1024 + 1), 'application/octet-stream');
    expect(big.status).toBe(413);
    expect(big.json.detail).toContain('artifact "big.bin" is over the limit of 2097152 bytes');
    const untyped = await api(`/v1/sessions/${id}/artifacts/a.bin`, {
      token: tokens.alice,
      method: 'POST',
      bytes: new Uint8Array([1]),
      type: '',
    });
    expect([400, 415]).toContain(untyped.status);
    const badType = await put('a.bin', new Uint8Array([1]), 'not a type');
    expect(badType.status).toBe(400);
    expect(badType.json.detail).toContain('mediaType: "not a type" is not a media type');
    const badLabel = await api(`/v1/sessions/${id}/artifacts/a.bin?labels=${encodeURIComponent('no spaces')}`, {
      token: tokens.alice,
      bytes: new Uint8Array([1]),
      type: 'text/plain',
    });
    expect(badLabel.status).toBe(400);
    expect((await put('ok.txt', new Uint8Array([1]), 'text/plain')).status).toBe(201);
    expect((await api(`/v1/sessions/${id}/artifacts/ok.txt?version=9`, { token: tokens.alice })).status).toBe(404);
    expect((await api(`/v1/sessions/${id}/artifacts/ok.txt?version=0`, { token: tokens.alice })).status).toBe(400);
    expect((await api('/v1/sessions/ses_nope/artifacts', { token: tokens.alice })).status).toBe(404);
    expect((await api('/v1/health')).status).toBe(200);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = await api('/v1/openapi.json');
    const upload = doc.json.paths['/v1/sessions/{id}/artifacts/{name}'].post;
    expect(upload.requestBody.content['*/*'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(upload.responses['413'].description).toContain('maxBytes');
    expect(doc.json.paths['/v1/sessions/{id}/artifacts/{name}'].get.responses['200'].content).toHaveProperty('*/*');
    expect(doc.json.paths['/v1/memory'].get.parameters.map((each: { name: string }) => each.name)).toEqual([
      'agent',
      'query',
      'principal',
      'limit',
    ]);
  });
});
