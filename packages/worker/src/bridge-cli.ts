#!/usr/bin/env node
import { constants } from 'node:os';
import { startBridge } from './bridge.js';
import { BRIDGE_USAGE, parseBridgeArguments, UsageError } from './bridge-arguments.js';
import { workerEndpoint } from './endpoint.js';

const log = (text: string) => process.stderr.write(`wardrik-worker: ${text}\n`);

function main(): void {
  let parsed: ReturnType<typeof parseBridgeArguments>;
  try {
    parsed = parseBridgeArguments(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`wardrik-worker: ${error.message}\n\n${BRIDGE_USAGE}\n`);
    process.exit(2);
  }
  if (parsed.type === 'help') {
    process.stdout.write(`${BRIDGE_USAGE}\n`);
    return;
  }
  const endpoint = workerEndpoint(parsed.url).href;
  const bridge = startBridge({
    url: parsed.url,
    token: parsed.token,
    command: parsed.command,
    args: parsed.args,
    ...(parsed.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: parsed.maxPayloadBytes }),
    onError: (error) => log(error.message),
    onStatus: (event) => {
      if (event.status === 'connected') log(`connected to ${endpoint}`);
      else if (event.retryInMs !== undefined) {
        log(`${event.error?.message ?? 'not connected'}; retrying in ${event.retryInMs} ms (attempt ${event.attempt})`);
      } else if (event.status === 'closed' && event.error) log(event.error.message);
    },
  });

  let signalled: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(128 + (constants.signals[signal] ?? 0)); // a second signal: leave now
    signalled = signal;
    void bridge.close();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  void bridge.exitCode.then((code) => {
    process.exit(signalled && code === 0 ? 128 + (constants.signals[signalled] ?? 0) : code);
  });
}

main();
