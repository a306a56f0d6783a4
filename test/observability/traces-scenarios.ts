// OpenTelemetry traces: a server spawned with OTEL_EXPORTER_OTLP_ENDPOINT exports its spans over
// OTLP/HTTP (JSON) to a receiver in the test. A request's spans chain request → operation → SQL;
// an incoming traceparent's trace is kept; the request's log lines carry its trace id; a webhook
// delivery, made later by the job, is a span of the trace of the request that wrote its event.
// traces.process.test.ts runs these on PGlite (Till's own SQL spans), traces.pg.test.ts on
// PostgreSQL (the pg instrumentation's).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Till, type TillEntry, useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;

const attribute = (span: ExportedSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

/** An OTLP/HTTP receiver on 127.0.0.1 that keeps every span it is sent. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; contentTypes: Set<string>; server: Server }> {
  const spans: ExportedSpan[] = [];
  const contentTypes = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.add(String(req.headers['content-type']));
      if (req.url === '/v1/traces' && req.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, spans, contentTypes, server };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** A traceparent as a caller's tracer would send it (letters first: no long run of digits). */
const incoming = () => {
  const traceId = `ab${hex(15)}`;
  const spanId = `cd${hex(7)}`;
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
};

/** Where the spawned server keeps its data: its environment (data dir, database) and the dir its demo merchant's keys go to. */
export interface TracedDatabase {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  drop?: () => Promise<void>;
  /** The server from the sources (the default) or from the build. */
  entry?: TillEntry;
}

export function describeTraces(label: string, database: (processes: ReturnType<typeof useProcesses>) => Promise<TracedDatabase>): void {
  const processes = useProcesses();
  describe(`OpenTelemetry traces over OTLP/HTTP (${label})`, () => {
    let collector: Awaited<ReturnType<typeof startCollector>>;
    let receiver: Receiver;
    let till: Till;
    let key: string;
    let db: TracedDatabase;

    beforeAll(async () => {
      collector = await startCollector();
      receiver = await startReceiver();
      db = await database(processes);
      till = await processes.startTill(
        {
          ...db.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
          LOG_LEVEL: 'info',
          TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true',
        },
        db.entry,
      );
      expect(till.url, till.output()).not.toBe('');
      key = JSON.parse(await readFile(path.join(db.dataDir, 'demo-merchant.json'), 'utf8')).keys.test.secret;
    });
    afterAll(async () => {
      till?.child.kill('SIGTERM');
      await till?.exited;
      await receiver?.close();
      collector?.server.close();
      await db?.drop?.();
    });

    const spansOf = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);

    it('chains request → operation → SQL in the trace of an incoming traceparent, and logs the trace id', async () => {
      const parent = incoming();
      const res = await call(till.url, 'GET', '/v1/plans', { key, headers: { traceparent: parent.header } });
      expect(res.status).toBe(200);

      // The statements end first, the server span last: they may come in different exports.
      await expect
        .poll(() => ['listPlans', 'GET /v1/plans'].every((name) => spansOf(parent.traceId).some((s) => s.name === name)), { timeout: 20_000 })
        .toBe(true);
      const spans = spansOf(parent.traceId);
      const server = spans.find((s) => s.kind === SERVER)!;
      expect(server.parentSpanId).toBe(parent.spanId);
      expect(server.name).toBe('GET /v1/plans');
      expect(attribute(server, 'http.route')).toBe('/v1/plans');
      const operation = spans.find((s) => s.name === 'listPlans')!;
      expect(operation.parentSpanId).toBe(server.spanId);
      const statements = spans.filter((s) => s.kind === CLIENT && attribute(s, 'db.system.name') === 'postgresql' && attribute(s, 'db.query.text'));
      expect(statements.some((s) => s.parentSpanId === operation.spanId)).toBe(true);
      const inTrace = new Set(spans.map((s) => s.spanId));
      for (const s of statements) {
        expect(inTrace).toContain(s.parentSpanId);
        // The statement's text, with placeholders, never its values (the key's hash, the merchant id).
        expect(String(attribute(s, 'db.query.text')).trim()).toMatch(/^(select|insert|update|delete|with|begin|commit)\b/i);
        expect(String(attribute(s, 'db.query.text'))).not.toContain(key);
      }
      expect(collector.contentTypes).toContain('application/json');

      await expect.poll(() => till.output(), { timeout: 10_000 }).toMatch(/"msg":"request"/);
      const lines = till
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const line = lines.find((l) => l.msg === 'request' && l.operationId === 'listPlans');
      expect(line).toMatchObject({ trace_id: parent.traceId, requestId: res.headers.get('x-request-id') });
    });

    it('starts a trace of its own for a request without a traceparent', async () => {
      const res = await call(till.url, 'GET', '/v1/plans', { key });
      expect(res.status).toBe(200);
      const requestId = res.headers.get('x-request-id');
      await expect.poll(() => till.output(), { timeout: 10_000 }).toContain(`"requestId":"${requestId}"`);
      const line = till
        .output()
        .split('\n')
        .find((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"msg":"request"'))!;
      const traceId = (JSON.parse(line) as { trace_id: string }).trace_id;
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      await expect.poll(() => spansOf(traceId).find((s) => s.kind === SERVER), { timeout: 20_000 }).toBeTruthy();
      expect(spansOf(traceId).find((s) => s.kind === SERVER)!.parentSpanId ?? '').toBe('');
    });

    it('makes a webhook delivery a span of the trace of the request that wrote its event', async () => {
      const configured = await call(till.url, 'POST', '/v1/WebhookConfiguration', { key, body: { sandboxUrl: receiver.url } });
      expect(configured.status).toBe(201);
      const created = await call(till.url, 'POST', '/v1/checkout-sessions', {
        key,
        body: { amount: 49.99, currency: 'USD', mode: 'hosted', paymentType: 'oneTime', successUrl: 'https://shop.example.com/thanks' },
      });
      expect(created.status).toBe(201);

      const parent = incoming();
      const cancelled = await call(till.url, 'POST', `/v1/checkout-sessions/${created.json.id}/cancel`, { key, headers: { traceparent: parent.header } });
      expect(cancelled.status).toBe(204);

      // The job delivers it after the request has answered, in the request's trace.
      await expect.poll(() => receiver.received.find((r) => r.json?.type === 'checkout.session.cancelled'), { timeout: 30_000 }).toBeTruthy();
      await expect.poll(() => spansOf(parent.traceId).find((s) => s.kind === PRODUCER), { timeout: 20_000 }).toBeTruthy();
      const spans = spansOf(parent.traceId);
      const operation = spans.find((s) => s.name === 'cancelCheckoutSession')!;
      const delivery = spans.find((s) => s.kind === PRODUCER)!;
      expect(delivery.name).toBe('webhook delivery');
      expect(attribute(delivery, 'till.event.type')).toBe('checkout.session.cancelled');
      expect(attribute(delivery, 'till.webhook.outcome')).toBe('succeeded');
      // Its parent is the span that wrote the event: the operation's, or one of its statements.
      expect([operation.spanId, ...spans.filter((s) => s.parentSpanId === operation.spanId).map((s) => s.spanId)]).toContain(delivery.parentSpanId);
      // The request it sends is a span of its own, and tells the receiver the trace and that span.
      const request = spans.find((s) => s.kind === CLIENT && s.parentSpanId === delivery.spanId)!;
      expect(request).toBeDefined();
      expect(request.name).toBe('POST');
      expect(attribute(request, 'http.response.status_code')).toBe(200);
      const received = receiver.received.find((r) => r.json?.type === 'checkout.session.cancelled')!;
      expect(String(received.headers.traceparent)).toMatch(new RegExp(`^00-${parent.traceId}-${request.spanId}-0[01]$`));
    });
  });
}
