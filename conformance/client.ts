// The client `conformance/run.sh` gives the MCP conformance suite's client scenarios
// (@modelcontextprotocol/conformance): Wardrik's `mcpToolset`, as an agent's run uses it. The suite
// runs `client.ts SERVER_URL` with MCP_CONFORMANCE_SCENARIO naming the scenario; this lists the
// server's tools through the toolset (connect, initialize, tools/list) and calls each with the
// arguments the scenario's server expects, through `call` as a run's step would. It exits 0 when
// every call answered, 1 (saying why on stderr) otherwise.
import { call, createContext, getPrivate, StateView, type Tool } from '@wardrik/core';
import { MCP_TOOLSET_TOOL, type McpToolsetToolInfo, mcpToolset } from 'wardrik';

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

const toolset = mcpToolset({
  name: 'conformance',
  url,
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
