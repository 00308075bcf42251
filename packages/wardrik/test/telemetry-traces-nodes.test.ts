/*
 * Traces across nodes (issue 17): nodes in this process on one PostgreSQL schema, each with its own
 * tracer provider (as separate processes would have). A run parked on node A and answered on node
 * B is resumed by B in A's trace, under A's run span (the context is journaled with the run); a
 * worker connected to node A serving a run driven on node B makes its span (the SDK in the worker
 * process) a child of B's attempt, the context having gone B → PostgreSQL → A → WebSocket.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWardrik, enableTracing, type Wardrik } from '../src/index.js';
import { dropTestSchema, openPostgresTestStore, testSchemaName } from './store-factories.js';
import { idOf, memoryTracing, named, only, parentOf, tracedAgent, traceOf } from './telemetry-spans.js';
import { FIXTURES, plan, SLOW, until, WorkerProcess, workerCall } from './workers-env.js';
import { NodesEnv, storeKinds } from './workers-nodes-env.js';

const agent = () => tracedAgent({ modelId: 'scripted-nodes', key: 'k' });

describe('a run parked on one node and answered on another', () => {
  const opened: Wardrik[] = [];
  let schema: string | undefined;
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((wardrik) => wardrik.close()));
    if (schema) await dropTestSchema(schema);
    schema = undefined;
  });

  async function node(name: string, onSchema: string): Promise<Wardrik> {
    const wardrik = await createWardrik({
      store: openPostgresTestStore({ schema: onSchema, keepSchema: true, pool: { max: 3 } }),
      agents: [agent()],
      node: name,
      claimIntervalMs: 50,
    });
    opened.push(wardrik);
    return wardrik;
  }

  it("is resumed by the answering node in the first node's trace, under its run span", async () => {
    schema = testSchemaName();
    const [a, b] = [await node('node-a', schema), await node('node-b', schema)];
    const onA = memoryTracing();
    const onB = memoryTracing();
    enableTracing(a, { tracer: onA.tracer });
    enableTracing(b, { tracer: onB.tracer });

    const parked = await a.run('traced', 'go');
    expect(parked.status).toBe('parked');
    const first = only(onA.spans(), 'invoke_agent traced');
    const [held] = parked.parks;
    await b.answerPark(held!.id, { type: 'retry' }, { callHash: held!.callHash, by: 'olivia' });
    expect((await b.wait(parked.runId)).status).toBe('completed');
    await until(() => named(onB.spans(), 'invoke_agent traced').length === 1, SLOW);

    // Node B drove the rest: every span of the rest is B's, in A's trace.
    const later = onB.spans();
    const resumed = only(later, 'invoke_agent traced');
    expect(resumed.attributes).toMatchObject({
      'wardrik.run.id': parked.runId,
      'wardrik.run.resumed': true,
      'wardrik.run.status': 'completed',
    });
    expect(traceOf(resumed)).toBe(traceOf(first));
    expect(parentOf(resumed)).toBe(idOf(first));
    expect(parentOf(only(later, 'park tool'))).toBe(idOf(first));
    const settled = only(later, 'execute_tool needs_person');
    expect(parentOf(settled)).toBe(idOf(resumed));
    expect(parentOf(only(later, 'chat scripted-nodes'))).toBe(idOf(resumed));
    expect(later.every((span) => traceOf(span) === traceOf(first))).toBe(true);
    // Node A made no span of the resumed stretch.
    expect(named(onA.spans(), 'invoke_agent traced')).toHaveLength(1);
    expect(named(onA.spans(), 'chat scripted-nodes')).toHaveLength(2);
  });
});

describe('a worker on one node serving a run driven on another', () => {
  let env: NodesEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it("makes its span a child of the driving node's attempt, the context carried through PostgreSQL", async () => {
    const postgres = storeKinds.find((kind) => kind.name === 'PostgreSQL');
    env = await NodesEnv.start(postgres!.make(), ['node-a', 'node-b']);
    const onA = memoryTracing();
    const onB = memoryTracing();
    enableTracing(env.node('node-a').wardrik, { tracer: onA.tracer });
    enableTracing(env.node('node-b').wardrik, { tracer: onB.tracer });
    const credentials = await env.principal(['*']);
    const worker = new WorkerProcess('traced', [
      join(FIXTURES, 'traced-worker.ts'),
      env.node('node-a').url,
      credentials.token,
      env.record,
      'traced',
    ]);
    env.processes.push(worker);
    await worker.ready;
    await env.listed('node-b', credentials, 'node-a');

    const { wardrik } = env.node('node-b');
    const { runId } = await wardrik.start('support', plan([workerCall('lookup', { key: 'k1' })]));
    expect((await wardrik.wait(runId)).status).toBe('completed');

    const [remote, ...more] = env.records().filter((line) => (line.event as string) === 'span') as unknown as Array<{
      name: string;
      traceId: string;
      parentSpanId: string;
      meta: Record<string, unknown>;
    }>;
    expect(more).toEqual([]);
    await until(() => named(onB.spans(), 'invoke_agent support').length === 1, SLOW);
    const spans = onB.spans();
    const call = only(spans, 'execute_tool workers__lookup');
    const attempt = only(spans, 'attempt workers__lookup');
    expect(parentOf(attempt)).toBe(idOf(call));
    expect(remote).toMatchObject({ name: 'worker lookup', traceId: traceOf(call), parentSpanId: idOf(attempt) });
    expect(remote?.meta).toMatchObject({ traceparent: `00-${traceOf(call)}-${idOf(attempt)}-01`, run: runId });
    // The run's spans are node B's only: node A forwarded the call and made none.
    expect(onA.spans().filter((span) => traceOf(span) === traceOf(call))).toEqual([]);
  });
});
