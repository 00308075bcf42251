import { COMMON_HELP, type CommandHelp, commonOptions } from '../command.js';

/** `wardrik serve`: loads the config and serves the HTTP API until SIGINT or SIGTERM. */
export const SERVE_HELP: CommandHelp = {
  name: 'serve',
  summary: 'start the server (HTTP API) with the agents of the config',
  usage: `Usage: wardrik serve [--config FILE] [--store STORE] [--host HOST] [--port PORT]
                     [--log-level LEVEL] [--log-format json|pretty] [--traces]
                     [--shutdown-grace-ms MS]

Loads the config (./wardrik.config.ts, .mts, .js or .mjs unless --config names one), recovers
the runs that were interrupted, and serves the HTTP API. The first time, it creates an admin and
prints its token once; it also saves it in .wardrik/admin-token next to the config (mode 0600), so
the CLI run from that directory needs no --token. GET /v1/live answers as soon as it listens;
GET /v1/ready answers 200 once its runs are recovered.

Ctrl-C (SIGINT) or SIGTERM stops it gracefully: ready turns 503 at once and new runs and answers
are refused (503); each run under way reaches its next journal record (a call under way finishes)
within the grace period and is handed over (on PostgreSQL another node takes it at once); event
streams end with a node-stopping event; traces are exported; it exits 0. A second signal exits at
once: what is on disk decides how the runs go on.

Options:
  --config FILE  the config file
  --store STORE  where runs live instead of the config's: a postgres:// URL (many nodes on one
                 PostgreSQL; also WARDRIK_DATABASE_URL) or a SQLite file path
  --host HOST    where to listen (default: the config's, else 127.0.0.1)
  --port PORT    the port (default: the config's, else 4000; 0 picks a free one)
  --log-level LEVEL
                 fatal, error, warn, info (default; or the config's telemetry.logLevel), debug,
                 trace or silent; log lines go to stderr
  --log-format FORMAT
                 json (one JSON object a line) or pretty; default: pretty on a terminal, else json
  --traces       trace runs with OpenTelemetry (the config's telemetry.traces; the tracer
                 provider is the one the config registers)
  --shutdown-grace-ms MS
                 how long runs under way get to reach their next journal record when it stops
                 (default: the config's server.shutdownGraceMs, else 20000)
${COMMON_HELP}`,
  options: {
    ...commonOptions,
    config: { type: 'string' },
    store: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'log-level': { type: 'string' },
    'log-format': { type: 'string' },
    traces: { type: 'boolean' },
    'shutdown-grace-ms': { type: 'string' },
  },
};
