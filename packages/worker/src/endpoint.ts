/** The path of Wardrik's worker endpoint, relative to its base URL. */
export const WORKERS_PATH = 'v1/workers';

/**
 * The WebSocket URL of Wardrik's worker endpoint for a Wardrik base URL: `http` becomes `ws`,
 * `https` becomes `wss`, and `/v1/workers` is appended to the path (a base path is kept). A URL
 * that already ends in `/v1/workers` is used as it is.
 *
 * @example
 * ```ts
 * workerEndpoint('https://wardrik.example.com/') // wss://wardrik.example.com/v1/workers
 * workerEndpoint('http://127.0.0.1:8080/base') // ws://127.0.0.1:8080/base/v1/workers
 * ```
 */
export function workerEndpoint(url: string | URL): URL {
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new TypeError(`Wardrik URL ${JSON.stringify(String(url))} is not a valid URL`);
  }
  const schemes: Record<string, string> = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' };
  const scheme = schemes[endpoint.protocol];
  if (scheme === undefined) {
    throw new TypeError(`Wardrik URL ${endpoint.href} must start with http://, https://, ws:// or wss://`);
  }
  endpoint.protocol = scheme;
  const path = endpoint.pathname.replace(/\/+$/, '');
  endpoint.pathname = path.endsWith(`/${WORKERS_PATH}`) ? path : `${path}/${WORKERS_PATH}`;
  endpoint.hash = '';
  return endpoint;
}
