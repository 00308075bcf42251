import { COMMON_HELP, type CommandHelp, commonOptions, SERVER_HELP, serverOptions } from '../command.js';

/** `wardrik listings`: what the untrusted tool sources of the config's agents say of their tools, to review and pin. */
export const LISTINGS_HELP: CommandHelp = {
  name: 'listings',
  summary: 'show what MCP servers and workers say of their tools, with the hashes to pin',
  usage: `Usage: wardrik listings [--agent NAME] [--check] [options]

Shows what the tool sources of the config's agents that are not trusted say of their tools —
MCP servers (mcpToolset without trusted: true) and workers — so that you can review it and pin
it. For each tool: the definition the model is shown (name, title, description, input and output
schemas, annotations; invisible characters shown as ⟨U+…⟩), its hash, and whether it is pinned
(its hash is its pin), unpinned, or changed since it was pinned.

Wardrik treats a definition that is not pinned as text from outside: a model step offered it
carries the label outside, so the run's calls that are not read-only wait for a person. Once you
have read a source's definitions, put the pins printed for it in the config:
  mcpToolset({ name: 'docs', …, pins: { lookup: 'sha256:…' } })
  defineConfig({ …, workers: { pins: { lookup: 'sha256:…' } } })

MCP servers are reached from here (a stdio server is started, then stopped). Workers are read
from the running server (GET /v1/workers), for agents that use worker tools.

Options:
  --config FILE  the config file
  --agent NAME   only the sources of this agent
  --check        exit 1 if a definition is unpinned or changed (for CI)
${SERVER_HELP}
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    ...serverOptions,
    config: { type: 'string' },
    agent: { type: 'string' },
    check: { type: 'boolean' },
  },
};
