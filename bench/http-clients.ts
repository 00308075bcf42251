// The HTTP load for bench/http.ts, in its own process (as real clients would be): N concurrent
// clients each start runs one after another over keep-alive connections and wait for them, first
// a warm-up (not measured, so the server's HTTP path is compiled, as on a server that has been
// up), then the measured runs. Uses node:http (lighter than fetch). Prints one JSON line.
import { Agent, request } from 'node:http';
import { concurrentRuns } from './concurrent-runs.js';

const [url, token, clientCount, runsEach, warmRunsEach] = process.argv.slice(2);
const target = new URL(`${url}/v1/runs`);
const agent = new Agent({ keepAlive: true, maxSockets: Number(clientCount) });
const body = JSON.stringify({ agent: 'short', input: 'go', wait: true });

function startOne(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => {
          const result = JSON.parse(text) as { status: string };
          if (result.status === 'completed') resolve();
          else reject(new Error(`run ${result.status}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

await concurrentRuns(Number(clientCount), Number(warmRunsEach), startOne);
const start = performance.now();
const latencies = await concurrentRuns(Number(clientCount), Number(runsEach), startOne);
const perSecond = (Number(clientCount) * Number(runsEach)) / ((performance.now() - start) / 1000);
console.log(JSON.stringify({ perSecond, latencies }));
agent.destroy();
