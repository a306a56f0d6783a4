// The notification hub (commerce-api.md › Events) as the official `@microsoft/signalr` client
// meets it: negotiate offers every transport the client falls back to (WebSockets, Server-Sent
// Events, long polling), the client forced onto each of the HTTP ones hears `InvoiceUpdated`, and
// the hub takes the Commerce interface's `x-api-key` where it takes a key.
import assert from 'node:assert/strict';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, expectStatus, sleep } from '../fixtures/http.js';
import { apiKey, emailFor } from '../fixtures/keys.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';

const EVENTS = source(COMMERCE_DOC, 'Events');
const INVOICE = 'createCommerceInvoice';
const SEND = 'sendCommerceInvoice';

const hubUrl = (ctx: ConformanceContext, path = '') => new URL(`/hubs/notifications${path}`, ctx.options.commerceBaseUrl ?? ctx.options.baseUrl).toString();

/** A new invoice, sent (its status becomes `Sent`, which the hub announces). */
async function sentInvoice(ctx: ConformanceContext, label: string): Promise<number> {
  const body = {
    currencyCode: 'USD',
    sourceInfo: { firstName: 'Conformance', lastName: label, email: emailFor(ctx, label) },
    items: [{ name: 'Hub', unitCost: 15, quantity: 1 }],
  };
  const made = await call(ctx, 'commerce', INVOICE, { method: 'POST', path: '/v1/invoice', apiKey: apiKey(ctx), body });
  expectStatus(made, 201, 'create an invoice');
  const sent = await call(ctx, 'commerce', SEND, { method: 'POST', path: `/v1/invoice/${made.json.id}/send`, apiKey: apiKey(ctx) });
  expectStatus(sent, 200, 'send the invoice');
  return made.json.id;
}

/** A merchant connection with the key in `x-api-key`, over `transport`; fails unless it hears the invoice `Sent`. */
async function hearsOver(ctx: ConformanceContext, transport: HttpTransportType, label: string): Promise<void> {
  const connection = new HubConnectionBuilder()
    .withUrl(hubUrl(ctx), { transport, headers: { 'x-api-key': apiKey(ctx) } })
    .configureLogging(LogLevel.None)
    .build();
  const heard: { invoiceId: number; status: string }[] = [];
  connection.on('InvoiceUpdated', (event: { invoiceId: number; status: string }) => heard.push(event));
  await connection.start();
  try {
    const id = await sentInvoice(ctx, label);
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(100)) {
      if (heard.some((e) => e.invoiceId === id && e.status === 'Sent')) return;
    }
    assert.fail(
      `over ${HttpTransportType[transport]}, the hub sent no InvoiceUpdated {invoiceId: ${id}, status: 'Sent'} within 15 s; heard ${JSON.stringify(heard)}`,
    );
  } finally {
    await connection.stop();
  }
}

const negotiate = (ctx: ConformanceContext, headers: Record<string, string>) =>
  fetch(hubUrl(ctx, '/negotiate?negotiateVersion=1'), { method: 'POST', headers: { 'content-type': 'text/plain', ...headers } });

export const hubScenarios: Scenario[] = [
  scenario(
    'commerce.events.hub-transports',
    "The hub's negotiate lists WebSockets, ServerSentEvents and LongPolling; the official client forced onto Server-Sent Events, then long polling, hears InvoiceUpdated",
    EVENTS,
    [INVOICE, SEND],
    async (ctx) => {
      const res = await negotiate(ctx, { 'x-api-key': apiKey(ctx) });
      assert.equal(res.status, 200, `negotiate: expected 200, got ${res.status}`);
      const body = (await res.json()) as { availableTransports?: { transport: string; transferFormats: string[] }[] };
      const offered = (body.availableTransports ?? []).filter((t) => t.transferFormats.includes('Text')).map((t) => t.transport);
      assert.deepEqual([...offered].sort(), ['LongPolling', 'ServerSentEvents', 'WebSockets'], `negotiate offers ${JSON.stringify(body.availableTransports)}`);
      await hearsOver(ctx, HttpTransportType.ServerSentEvents, 'hub-sse');
      await hearsOver(ctx, HttpTransportType.LongPolling, 'hub-poll');
    },
  ),
  scenario(
    'commerce.events.hub-x-api-key',
    'The hub takes the key in `x-api-key`, as the Commerce interface does: negotiate answers 200 for a valid key and 401 invalid_api_key for an unknown one; a WebSocket connection with it hears InvoiceUpdated',
    EVENTS,
    [INVOICE, SEND],
    async (ctx) => {
      const unknown = await negotiate(ctx, { 'x-api-key': 'sk_test_NotARealKeyAtAll0000000000' });
      assert.equal(unknown.status, 401, `an unknown key in x-api-key: expected 401, got ${unknown.status}`);
      assert.equal(((await unknown.json()) as { error?: { code?: string } }).error?.code, 'invalid_api_key');
      const valid = await negotiate(ctx, { 'x-api-key': apiKey(ctx) });
      assert.equal(valid.status, 200, `the key in x-api-key: expected 200, got ${valid.status}`);
      await hearsOver(ctx, HttpTransportType.WebSockets, 'hub-ws');
    },
  ),
];
