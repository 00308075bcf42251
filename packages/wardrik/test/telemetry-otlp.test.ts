/*
 * Telemetry (issue 29, item 3): what an application that exports OpenTelemetry over OTLP gets. The
 * application (fixtures/telemetry/otlp-app.ts, a process of its own) registers a tracer provider
 * and a meter provider with the OTLP/HTTP exporters and calls `enableTracing(wardrik)` with no
 * tracer or meter: the spans and the two GenAI client metrics reach a real OTLP/HTTP receiver (an
 * HTTP server on the loopback, here, that decodes what the exporters post), beside Wardrik's own
 * Prometheus metrics.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** An OTLP attribute as the JSON encoding writes it. */
interface OtlpAttribute {
  readonly key: string;
  readonly value: { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
}
interface OtlpSpan {
  readonly name: string;
  readonly attributes: readonly OtlpAttribute[];
}
interface OtlpMetric {
  readonly name: string;
  readonly unit?: string;
  readonly histogram?: { dataPoints: Array<{ attributes: OtlpAttribute[]; count: number | string; sum?: number }> };
}

/** The attributes of an OTLP item as a plain record. */
function attributesOf(item: { attributes: readonly OtlpAttribute[] }): Record<string, unknown> {
  return Object.fromEntries(
    item.attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue === undefined ? (value.doubleValue ?? value.boolValue) : Number(value.intValue)),
    ]),
  );
}

/** A real OTLP/HTTP receiver (JSON): keeps every span and metric posted to it. */
function otlpReceiver(): { server: Server; spans: OtlpSpan[]; metrics: OtlpMetric[]; url: () => string } {
  const spans: OtlpSpan[] = [];
  const received: OtlpMetric[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      expect(request.headers['content-type']).toContain('application/json');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        resourceMetrics?: Array<{ scopeMetrics: Array<{ metrics: OtlpMetric[] }> }>;
      };
      if (request.url === '/v1/traces') {
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      } else if (request.url === '/v1/metrics') {
        for (const resource of body.resourceMetrics ?? [])
          for (const scope of resource.scopeMetrics) received.push(...scope.metrics);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return {
    server,
    spans,
    metrics: received,
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  };
}

const APP = fileURLToPath(new URL('./fixtures/telemetry/otlp-app.ts', import.meta.url));

describe('OTLP export through the providers the application registered', () => {
  const receiver = otlpReceiver();
  beforeAll(() => new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve)));
  afterAll(() => new Promise((resolve) => receiver.server.close(resolve)));

  it('spans with the GenAI attributes and gen_ai.client.* metrics reach the receiver; /metrics counts the same run', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@wardrik/source', '--import', 'tsx', APP, receiver.url()],
      { timeout: 60_000 },
    );
    const printed = JSON.parse(stdout.trim()) as { status: string; tokens: string };
    expect(printed).toEqual({
      status: 'completed',
      tokens: 'wardrik_model_tokens_total{agent="exported",model="openai:gpt-4o-mini",direction="input"} 20',
    });

    const chats = receiver.spans.filter((span) => span.name === 'chat gpt-4o-mini');
    expect(chats).toHaveLength(2);
    expect(attributesOf(chats[0]!)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 10,
    });
    const call = receiver.spans.find((span) => span.name === 'execute_tool lookup');
    expect(attributesOf(call!)).toMatchObject({
      'gen_ai.tool.call.id': 'call_abc',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Looks up.',
    });
    expect(receiver.spans.map((span) => span.name)).toContain('invoke_agent exported');

    const duration = receiver.metrics.find((metric) => metric.name === 'gen_ai.client.operation.duration');
    expect(duration?.unit).toBe('s');
    expect(duration?.histogram?.dataPoints.map((point) => [attributesOf(point), Number(point.count)])).toEqual([
      [{ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini' }, 2],
    ]);
    const tokens = receiver.metrics.find((metric) => metric.name === 'gen_ai.client.token.usage');
    const byType = Object.fromEntries(
      (tokens?.histogram?.dataPoints ?? []).map((point) => [attributesOf(point)['gen_ai.token.type'], point.sum]),
    );
    expect(byType).toEqual({ input: 20, output: 10 });
  });
});
