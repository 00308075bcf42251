// The prober of bench/retention.ts, in its own process so that its timing does not share the
// server's event loop: GETs `/v1/health` one request after another over a keep-alive connection,
// pausing `gapMs` between them, until its stdin closes. Prints one JSON line: [wall-clock ms at
// the request's start, latency in µs] pairs, so that the bench can tell which fell in a sweep.
import { Agent, request } from 'node:http';

const [url, gapMs] = process.argv.slice(2);
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

let open = true;
process.stdin.on('end', () => {
  open = false;
});
process.stdin.resume();
const samples: [number, number][] = [];
while (open) {
  const at = Date.now();
  samples.push([at, await probe()]);
  await new Promise((resolve) => setTimeout(resolve, Number(gapMs)));
}
agent.destroy();
process.stdout.write(`${JSON.stringify(samples)}\n`);
