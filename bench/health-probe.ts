// The prober of bench/responsiveness.ts, in its own process so that its timing does not share the
// server's event loop: GETs `/v1/health` one request after another over a keep-alive connection,
// pausing `gapMs` between them, for `durationMs`. Prints one JSON line: the latencies, in µs.
import { Agent, request } from 'node:http';

const [url, durationMs, gapMs] = process.argv.slice(2);
const target = new URL(`${url}/v1/health`);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function probe(): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(target, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve((performance.now() - start) * 1000));
    });
    req.on('error', reject);
    req.end();
  });
}

const latencies: number[] = [];
const until = performance.now() + Number(durationMs);
while (performance.now() < until) {
  latencies.push(await probe());
  await new Promise((resolve) => setTimeout(resolve, Number(gapMs)));
}
agent.destroy();
process.stdout.write(`${JSON.stringify(latencies)}\n`);
