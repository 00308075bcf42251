// The HTTP load for bench/http.ts, in its own process (as real clients would be): N concurrent
// clients each start runs one after another over keep-alive connections and wait for them.
// Uses node:http (lighter than fetch) so the client is not the bottleneck. Prints one JSON line.
import { Agent, request } from 'node:http';

const [url, token, clientCount, runsEach] = process.argv.slice(2);
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

for (let warm = 0; warm < 50; warm++) await startOne();
const latencies: number[] = [];
const start = performance.now();
await Promise.all(
  Array.from({ length: Number(clientCount) }, async () => {
    for (let index = 0; index < Number(runsEach); index++) {
      const began = performance.now();
      await startOne();
      latencies.push(performance.now() - began);
    }
  }),
);
const perSecond = (Number(clientCount) * Number(runsEach)) / ((performance.now() - start) / 1000);
console.log(JSON.stringify({ perSecond, latencies }));
agent.destroy();
