// The HTTP load for bench/http.ts, in its own process (as real clients would be): N concurrent
// clients each start runs one after another and wait for them. Prints one JSON line of figures.
const [url, token, clientCount, runsEach] = process.argv.slice(2);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const body = JSON.stringify({ agent: 'short', input: 'go', wait: true });

async function startOne(): Promise<void> {
  const response = await fetch(`${url}/v1/runs`, { method: 'POST', headers, body });
  const result = (await response.json()) as { status: string };
  if (result.status !== 'completed') throw new Error(`run ${result.status}`);
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
