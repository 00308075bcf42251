// The client `conformance/run.sh` gives the MCP conformance suite's client scenarios
// (@modelcontextprotocol/conformance): Wardrik's `mcpToolset`, as an agent's run uses it. The suite
// runs `client.ts SERVER_URL` with MCP_CONFORMANCE_SCENARIO naming the scenario; this lists the
// server's tools through the toolset (connect, initialize, tools/list) and calls each with the
// arguments the scenario's server expects, through `call` as a run's step would. It exits 0 when
// every call answered, 1 (saying why on stderr) otherwise.
//
// OAuth (the suite's `auth/*` scenarios): the toolset signs in through `auth`, on the MCP SDK's
// OAuth client, keeping its tokens in a memory store encrypted with WARDRIK_SECRET_KEY (a fresh
// key when none is set). The suite's authorization server approves at once, so the `authorize`
// hook plays the person: it follows the authorization URL's redirect and hands back the code and
// state (a real deployment shows the URL to a person instead). The scenario's context
// (MCP_CONFORMANCE_CONTEXT) gives the pre-registered client's credentials where there is one.
//
// Elicitation (the suite's `elicitation-*` client scenarios): a server's `elicitation/create`
// during a call reaches the call's `context.requestInput`, where a run would park for a person.
// Here the person accepts with nothing filled in, so the toolset fills the schema's defaults
// (SEP-1034) and checks the content against the schema before it goes back.
import { randomBytes } from 'node:crypto';
import {
  call,
  createContext,
  getPrivate,
  type InputQuestion,
  type InputReply,
  StateView,
  type Tool,
} from '@wardrik/core';
import { MCP_TOOLSET_TOOL, type McpToolsetToolInfo, mcpToolset } from 'wardrik';
import { memoryStore } from 'wardrik/testing';

/** Where the suite's authorization server sends the person back (nothing listens: the hook reads the redirect). */
const REDIRECT_URL = 'http://localhost:3000/callback';
/** The client ID metadata document the suite's CIMD scenarios expect (its AS does not fetch it). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The arguments a scenario's tool is called with, by its name on the server (none: `{}`). */
const ARGUMENTS: Readonly<Record<string, Record<string, unknown>>> = {
  add_numbers: { a: 5, b: 3 },
};

const url = process.argv[2];
const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '(none)';
if (!url) {
  console.error('usage: client.ts SERVER_URL (MCP_CONFORMANCE_SCENARIO names the scenario)');
  process.exit(2);
}

process.env['WARDRIK_SECRET_KEY'] ??= randomBytes(32).toString('hex');
const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}') as Record<string, string | undefined>;

/** Plays the person at the suite's authorization server, which approves at once: follows its redirect. */
async function approve({ url: authorizationUrl }: { url: URL }): Promise<{ code: string; state: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (location === null) throw new Error(`the authorization server did not redirect (HTTP ${response.status})`);
  const back = new URL(location);
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

/** Plays the person asked during a call: accepts, filling in nothing (the schema's defaults fill it). */
async function requestInput(question: InputQuestion): Promise<InputReply> {
  console.error(`[person] asked (${question.mode}): ${question.message}`);
  return question.mode === 'form' ? { action: 'accept', content: {} } : { action: 'accept' };
}

/** `mcpToolset`'s `auth` option. */
type Auth = NonNullable<Extract<Parameters<typeof mcpToolset>[0], { url: unknown }>['auth']>;

function authFor(): Auth {
  const store = memoryStore();
  if (scenario === 'auth/client-credentials-basic') {
    return { store, clientId: context['client_id'] ?? '', clientSecret: context['client_secret'] ?? '' };
  }
  if (scenario === 'auth/client-credentials-jwt') {
    return {
      store,
      clientId: context['client_id'] ?? '',
      privateKey: context['private_key_pem'] ?? '',
      signingAlgorithm: context['signing_algorithm'] ?? 'ES256',
    };
  }
  if (scenario === 'auth/pre-registration') {
    return {
      store,
      grant: 'authorization_code',
      clientId: context['client_id'] ?? '',
      clientSecret: context['client_secret'] ?? '',
      redirectUrl: REDIRECT_URL,
      authorize: approve,
    };
  }
  return {
    store,
    clientName: 'wardrik-conformance',
    redirectUrl: REDIRECT_URL,
    clientMetadataUrl: CLIENT_METADATA_URL,
    authorize: approve,
  };
}

const toolset = mcpToolset({
  name: 'conformance',
  url,
  auth: authFor(),
  connectTimeoutMs: 10_000,
  callTimeoutMs: 20_000,
  log: (message) => console.error(`[toolset] ${message}`),
});

async function main(): Promise<number> {
  const signal = new AbortController().signal;
  const tools: readonly Tool<never>[] = await toolset.tools({
    runId: 'conformance',
    agentName: 'conformance',
    principal: 'conformance',
    step: 1,
    labels: [],
    state: new StateView(),
    signal,
  });
  if (tools.length === 0) {
    // A server that could not be reached is left out of the step: the toolset says why (logged above).
    console.error(`${scenario}: the server offered no tools (or could not be reached)`);
    return 1;
  }
  let failed = 0;
  for (const [index, tool] of tools.entries()) {
    const info = getPrivate<McpToolsetToolInfo | undefined>(tool, MCP_TOOLSET_TOOL, undefined);
    const name = info?.mcpName ?? tool.name;
    const answer = await call(
      tools,
      { id: `c${index + 1}`, name: tool.name, arguments: ARGUMENTS[name] ?? {} },
      createContext({
        runId: 'conformance',
        agent: 'conformance',
        principal: 'conformance',
        callId: `c${index + 1}`,
        idempotencyKey: `conformance:c${index + 1}`,
        signal,
        requestInput,
      }),
    );
    console.log(`${name}: ${JSON.stringify(answer)}`);
    if (answer.type !== 'ok') failed += 1;
  }
  return failed === 0 ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (thrown) {
  console.error(`${scenario}: ${thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown)}`);
} finally {
  await toolset.close().catch(() => {});
}
process.exit(code);
