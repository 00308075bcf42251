// `wardrik/server`: the HTTP API (Hono), the server that serves it, the metrics listener and the
// workers' WebSocket endpoint.
export { type AppOptions, createApp } from './server/app.js';
export {
  type MetricsSource,
  type RunningMetricsServer,
  type ServedMetrics,
  startMetricsServer,
} from './server/metrics-route.js';
export { NodeLifecycle } from './server/node-lifecycle.js';
export { type RunningServer, type ServerOptions, startServer } from './server/start-server.js';
export { attachWorkerEndpoint, WORKER_PATH } from './server/worker-endpoint.js';
