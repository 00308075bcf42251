// wardrik.config.ts for a deployment: your agents, and what running them in production needs.
// docs/deploy.md explains each setting; packages/wardrik/test/deploy-guide.test.ts serves it.
import { defineConfig } from 'wardrik';
import { agents } from './agents.js'; // your agents (defineAgent), as in development

export default defineConfig({
  agents,
  // store: not set. On one node: the SQLite file .wardrik/wardrik.db next to this file. On many
  // nodes: WARDRIK_DATABASE_URL (postgres://…), the same database for every node.
  server: {
    // On SIGTERM, how long runs under way get to reach their next journal record (the default).
    shutdownGraceMs: 20_000,
    // host and port: `wardrik serve --host … --port …` (127.0.0.1:4000 by default).
  },
  // Nothing is ever deleted unless said here.
  retention: { endedRunsDays: 30, idleSessionsDays: 90 },
  // /metrics on the API port needs WARDRIK_METRICS_TOKEN (set in the environment, not here).
  mcp: {
    // The name clients reach it by, through the proxy: /mcp checks the Host header against it
    // (DNS rebinding protection), and its OAuth metadata names this URL rather than http://….
    allowedHosts: ['wardrik.example.com'],
    publicUrl: 'https://wardrik.example.com',
  },
});
