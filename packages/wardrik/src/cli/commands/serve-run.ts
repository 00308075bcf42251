import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Agent } from '../../agent.js';
import { AuthService } from '../../auth/auth-service.js';
import { type LoadedConfig, loadConfig } from '../../config/load-config.js';
import { describeStore } from '../../config/store-setting.js';
import { createWardrik, type Wardrik } from '../../runtime/wardrik.js';
import { type RunningMetricsServer, type ServedMetrics, startMetricsServer } from '../../server/metrics-route.js';
import { NodeLifecycle } from '../../server/node-lifecycle.js';
import { type RunningServer, startServer } from '../../server/start-server.js';
import { createLogger, LOG_LEVELS, type LogLevel, logRuntime } from '../../telemetry/logging.js';
import { enableMetrics } from '../../telemetry/metrics.js';
import { metricsPlan, type TelemetryConfig } from '../../telemetry/telemetry-config.js';
import { enableTracing } from '../../telemetry/tracing.js';
import { ScriptedModel } from '../../testing/scripted-model.js';
import { CliError, EXIT, usageError } from '../cli-error.js';
import type { Parsed } from '../command.js';
import { flag, numberOption, positionals, stringOption } from '../command.js';
import { commandHint } from '../hint.js';
import { print, printJson } from '../output.js';
import { SERVE_HELP as serve } from './serve-help.js';
import { serveUntilStopped } from './serve-stop.js';

/** Runs `wardrik serve` (loaded when the command runs). */
export async function runServe(parsed: Parsed): Promise<number> {
  positionals(serve, parsed, []);
  const port = numberOption(
    serve,
    parsed,
    'port',
    'a port number from 0 to 65535',
    (value) => Number.isInteger(value) && value >= 0 && value <= 65_535,
  );
  const logLevel = stringOption(parsed, 'log-level');
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw usageError(
      `--log-level expects one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`,
      serve.usage,
    );
  }
  const graceOption = numberOption(
    serve,
    parsed,
    'shutdown-grace-ms',
    'a whole number of ms of at least 0',
    (value) => Number.isSafeInteger(value) && value >= 0,
  );
  const logFormat = stringOption(parsed, 'log-format');
  if (logFormat !== undefined && logFormat !== 'json' && logFormat !== 'pretty') {
    throw usageError(`--log-format expects json or pretty, got ${JSON.stringify(logFormat)}`, serve.usage);
  }
  const config = await loadConfig(stringOption(parsed, 'config'), process.cwd(), {
    store: stringOption(parsed, 'store'),
  });
  const metricsSettings = metricsPlan(config.telemetry);
  const logger = createLogger({
    level: (logLevel as LogLevel | undefined) ?? config.telemetry?.logLevel ?? 'info',
    ...(logFormat === undefined ? {} : { format: logFormat }),
    ...(metricsSettings?.token ? { secrets: [metricsSettings.token] } : {}),
  });
  // Takes the store's lock first: a second serve on the same store fails here, having touched nothing.
  const wardrik = await createWardrik({
    store: config.store,
    agents: config.agents,
    ...config.runtime,
    workers: {
      ...config.runtime.workers,
      log: config.runtime.workers?.log ?? ((message) => logger.warn({ component: 'workers' }, message)),
    },
    recover: false,
  });
  // Telemetry listens before recovery, so that resumed runs are logged, traced and counted.
  logRuntime(wardrik, logger);
  wardrik.retention.onPurged((purged) => logger.info({ component: 'retention', ...purged }, `purged ${purged.kind}`));
  const traces = tracesSetting(config.telemetry, flag(parsed, 'traces'));
  if (traces) enableTracing(wardrik, traces);
  const metrics = metricsSettings ? enableMetrics(wardrik) : undefined;
  let metricsServer: RunningMetricsServer | undefined;
  let server: RunningServer;
  let admin: AdminToken;
  let resumed: number;
  let needAttention: number;
  // Not ready (`/v1/ready` answers 503) until its runs are recovered: see listen().
  const lifecycle = new NodeLifecycle('starting');
  try {
    const auth = new AuthService(config.store);
    admin = await adminToken(auth, config);
    const host = stringOption(parsed, 'host') ?? config.host;
    // Bind before recovering anything: a port in use stops this process before it drives a run, and
    // the probes answer while it recovers (live: 200; ready: 503 until recovered, so that a load
    // balancer sends it nothing yet and a liveness probe does not kill a long recovery).
    server = await listen({
      wardrik,
      auth,
      host,
      port: port ?? config.port,
      config,
      lifecycle,
      ...(metrics && metricsSettings?.token ? { metrics: { source: metrics, token: metricsSettings.token } } : {}),
      ...(metrics && metricsSettings?.tokenFile
        ? { metrics: { source: metrics, tokenFile: metricsSettings.tokenFile } }
        : {}),
    });
    try {
      if (metrics && metricsSettings?.listen) {
        metricsServer = await startMetricsServer({ source: metrics, ...metricsSettings.listen });
      }
      ({ resumed, needAttention } = await wardrik.recover());
      lifecycle.ready();
    } catch (thrown) {
      await metricsServer?.close();
      await server.close();
      throw thrown;
    }
  } catch (thrown) {
    await wardrik.close().catch(() => {});
    throw thrown;
  }
  const asJson = parsed.values['json'] === true;
  saveServerUrl(config.stateDirectory, clientUrl(server.url));
  // Listening for SIGTERM before the banner: whoever waits for it may stop the server at once.
  const stopped = serveUntilStopped({
    wardrik,
    logger,
    lifecycle,
    graceMs: graceOption ?? config.shutdownGraceMs,
    closeServers: async () => {
      await metricsServer?.close();
      await server.close();
    },
  });
  logger.info(
    {
      url: server.url,
      ...(metricsServer
        ? { metrics: metricsServer.url }
        : metricsSettings?.token || metricsSettings?.tokenFile
          ? { metrics: `${server.url}/metrics` }
          : {}),
      traces: traces !== undefined,
      node: wardrik.node,
      resumed,
      needAttention,
    },
    'listening',
  );
  if (asJson) {
    printJson({
      url: server.url,
      port: server.port,
      config: config.path,
      node: wardrik.node,
      agents: config.agents.map((agent) => ({ name: agent.name, model: agent.model.id, demo: isDemoModel(agent) })),
      resumed,
      needAttention,
      ...admin,
    });
  } else {
    const configOption = stringOption(parsed, 'config');
    report(server, config, admin, {
      resumed,
      needAttention,
      node: wardrik.node,
      ...(configOption ? { configOption } : {}),
    });
  }
  return stopped;
}

/** The admin token: new (shown once), saved in a file earlier, or neither. */
type AdminToken =
  | { readonly token: string; readonly tokenFile: string; readonly created: true }
  | { readonly tokenFile: string; readonly created: false; readonly valid: boolean | undefined };

/** Makes sure there is an admin; a new admin's token is saved in `<config dir>/.wardrik/admin-token` (0600). */
async function adminToken(auth: AuthService, config: LoadedConfig): Promise<AdminToken> {
  const tokenFile = join(config.stateDirectory, 'admin-token');
  const created = await auth.ensureAdmin();
  if (created) {
    mkdirSync(config.stateDirectory, { recursive: true, mode: 0o700 });
    // The directory holds a secret: keep it out of git even where no .gitignore says so.
    const ignore = join(config.stateDirectory, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, '*\n');
    writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
    return { token: created.token, tokenFile, created: true };
  }
  if (!existsSync(tokenFile)) return { tokenFile, created: false, valid: undefined };
  const saved = readFileSync(tokenFile, 'utf8').trim();
  const outcome = await auth.authenticate(`Bearer ${saved}`);
  return { tokenFile, created: false, valid: outcome.ok };
}

/** Tracing's options, when traces are on (`--traces`, or the config's `telemetry.traces`). */
function tracesSetting(
  telemetry: TelemetryConfig | undefined,
  flagged: boolean,
): { includeContent: boolean } | undefined {
  const setting = telemetry?.traces;
  if (!flagged && !setting) return undefined;
  return { includeContent: typeof setting === 'object' && setting.includeContent === true };
}

async function listen(options: {
  wardrik: Wardrik;
  auth: AuthService;
  host: string;
  port: number;
  config: LoadedConfig;
  lifecycle: NodeLifecycle;
  metrics?: ServedMetrics;
}): Promise<RunningServer> {
  const { wardrik, auth, host, port, config, lifecycle } = options;
  try {
    return await startServer({
      wardrik,
      auth,
      host,
      port,
      lifecycle,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...config.limits,
      ...(config.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: config.bodyLimitBytes }),
      ...(config.maxWorkerFrameBytes === undefined ? {} : { maxWorkerFrameBytes: config.maxWorkerFrameBytes }),
      mcp: config.mcp,
    });
  } catch (thrown) {
    const code = (thrown as { code?: string }).code;
    const why =
      code === 'EADDRINUSE'
        ? 'the port is in use (another wardrik serve?); pick another with --port'
        : code === 'EACCES'
          ? 'permission denied; pick a port above 1023'
          : (thrown as Error).message;
    throw new CliError(EXIT.failed, `cannot listen on ${host}:${port}: ${why}`, { cause: thrown });
  }
}

function isDemoModel(agent: Agent): boolean {
  return agent.model instanceof ScriptedModel || agent.model.id.startsWith('scripted');
}

/** What serve found starting up, and the --config it was given (named again in hints). */
interface Startup {
  readonly resumed: number;
  readonly needAttention: number;
  readonly configOption?: string;
  /** This node's name in the leases it holds. */
  readonly node: string;
}

/**
 * Saves where this server listens in `<config dir>/.wardrik/server-url`, where the CLI run in that
 * folder looks when neither `--url` nor `WARDRIK_URL` says (the config's `server.port`, or
 * `--port`, is then found without repeating it).
 */
function saveServerUrl(stateDirectory: string, url: string): void {
  try {
    mkdirSync(stateDirectory, { recursive: true, mode: 0o700 });
    writeFileSync(join(stateDirectory, 'server-url'), `${url}\n`);
  } catch {
    // A read-only folder: the CLI then needs --url, as before.
  }
}

/** The URL clients reach a server at: one listening on every address is reached at localhost. */
export function clientUrl(serverUrl: string): string {
  return serverUrl.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

function report(server: RunningServer, config: LoadedConfig, admin: AdminToken, startup: Startup): void {
  const { resumed, needAttention } = startup;
  const url = { url: clientUrl(server.url) };
  const local = startup.configOption === undefined ? {} : { config: startup.configOption };
  const shown = (file: string) => relative(process.cwd(), file) || file;
  print(`Wardrik listening on ${server.url}`);
  print(`Config: ${shown(config.path)}`);
  print(
    `Store: ${config.defaultStore ? `SQLite, ${shown(join(config.stateDirectory, 'wardrik.db'))}` : describeStore(config.store)}`,
  );
  print(`Node: ${startup.node}`);
  if (resumed > 0) print(`Resumed ${resumed} interrupted run${resumed === 1 ? '' : 's'}.`);
  if (needAttention > 0) {
    print(
      `${needAttention} run${needAttention === 1 ? '' : 's'} could not be loaded and need${needAttention === 1 ? 's' : ''} attention (see ${commandHint('runs', url)}).`,
    );
  }
  print('Agents:');
  for (const agent of config.agents) {
    const model = isDemoModel(agent)
      ? `model ${agent.model.id}: the scripted offline demo model (no model configured: set WARDRIK_MODEL, e.g. openai:gpt-4.1-mini with OPENAI_API_KEY)`
      : `model ${agent.model.id}`;
    const tools = [...agent.tools.keys()].join(', ') || 'no tools';
    print(`  ${agent.name} — ${model}; tools: ${tools}`);
  }
  const where = relative(process.cwd(), config.directory);
  const from = where === '' ? 'here' : `in ${where}/`;
  if (admin.created) {
    print(`Admin token (shown once; saved in ${shown(admin.tokenFile)}):`);
    print(`  ${admin.token}`);
    print(`The CLI uses it when run ${from}; elsewhere pass --token or set WARDRIK_TOKEN.`);
  } else if (admin.valid) {
    print(`Admin token: in ${shown(admin.tokenFile)} (the CLI uses it when run ${from}).`);
  } else {
    const why =
      admin.valid === false
        ? `${shown(admin.tokenFile)} holds a token this store does not know`
        : 'its token was shown when it was created';
    print(`An admin exists (${why}). Make a new token with: ${commandHint('tokens create --name admin', local)}`);
  }
  print(`Try it from another terminal, ${from}:`);
  print(`  ${commandHint(`run ${config.agents[0]?.name ?? 'AGENT'} "Please refund order A1"`, url)}`);
}
