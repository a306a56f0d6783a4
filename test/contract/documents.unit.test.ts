// Checks the bundled contracts for what Redocly's rules cannot express: every operation the
// source documents name is present, and every operation carries what merchants and the
// frontend mock rely on (ids, scopes, examples, error bodies, rate-limit headers).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deref } from '../../server/openapi/document.js';

type Json = Record<string, any>;
const load = (api: string): Json => JSON.parse(readFileSync(new URL(`../../generated/${api}.openapi.json`, import.meta.url), 'utf8'));
const docs = { checkout: load('checkout'), commerce: load('commerce') };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

interface Op {
  api: 'checkout' | 'commerce';
  method: string;
  path: string;
  op: Json;
  pathItem: Json;
}

function operations(api: 'checkout' | 'commerce'): Op[] {
  const doc = docs[api];
  const out: Op[] = [];
  for (const [path, rawItem] of Object.entries<Json>(doc.paths ?? {})) {
    const pathItem = deref(doc, rawItem);
    for (const method of METHODS) {
      if (pathItem[method]) out.push({ api, method: method.toUpperCase(), path, op: pathItem[method], pathItem });
    }
  }
  return out;
}
const allOps = [...operations('checkout'), ...operations('commerce')];
const label = (o: Op) => `${o.api} ${o.method} ${o.path}`;

/** The operations named by the contracts issue: method and path, `{}` for a path parameter. */
const REQUIRED = {
  checkout: `POST /v1/checkout-sessions
GET /v1/checkout-sessions/{}
POST /v1/checkout-sessions/{}/confirm
POST /v1/checkout-sessions/{}/tokenize
GET /v1/checkout-sessions/{}/saved-cards
POST /v1/checkout-sessions/{}/saved-cards/verify
POST /v1/checkout-sessions/{}/saved-cards/confirm-otp
POST /v1/checkout-sessions/{}/withdraw-qr
POST /v1/checkout-sessions/{}/cancel
GET /v1/checkout-sessions/{}/status
POST /v1/checkout-sessions/{}/src/lookup
POST /v1/checkout-sessions/{}/src/authenticate
POST /v1/checkout-sessions/{}/refund
POST /v1/payments/{}/refund
POST /v1/payments/{}/capture
POST /v1/payments/{}/release
POST /v1/client-token
GET /v1/subscriptions/{}
GET /v1/subscriptions
POST /v1/subscriptions/{}/cancel
POST /v1/subscriptions/{}/pause
POST /v1/subscriptions/{}/resume
GET /v1/subscriptions/{}/invoices
POST /v1/plans
GET /v1/plans
GET /v1/plans/{}
PATCH /v1/plans/{}
DELETE /v1/plans/{}
POST /v1/customers
GET /v1/customers
GET /v1/customers/{}
POST /v1/products
GET /v1/products
GET /v1/products/{}
POST /v1/invoices
GET /v1/invoices
GET /v1/invoices/{}
GET /v1/invoices/{}/pdf
POST /v1/invoices/{}/send
POST /v1/invoices/{}/void
POST /v1/invoices/{}/refund
POST /v1/portal-sessions
POST /v1/WebhookConfiguration
GET /v1/WebhookConfiguration
POST /v1/WebhookConfiguration/{}/SendTestEvent
GET /v1/WebhookConfiguration/{}
PATCH /v1/WebhookConfiguration/{}
DELETE /v1/WebhookConfiguration/{}
GET /v1/WebhookConfiguration/{}/deliveries
POST /v1/WebhookConfiguration/{}/deliveries/{}/resend
POST /v1/test-helpers/clock/advance
POST /v1/test-helpers/payments/{}/settle
POST /v1/test-helpers/checkout-sessions/{}/qr-paid
GET /v1/test-helpers/messages`,
  commerce: `POST /v1/invoice
GET /v1/invoice/getByReference(code='{}')
GET /v1/invoice/{}
GET /v1/invoice/{}/PaymentMethods
GET /v1/invoice/qrcode/{}
GET /v1/invoice
POST /api/payment/payinvoice
GET /v1/FundingSource
POST /v1/payment/RegisterCard
POST /v1/fundingSource/{}/verify
GET /v1/account
GET /v1/account/{}/balance
GET /v1/GatewayTransferDto
GET /v1/FinancialDashboard/transfers
GET /v1/FinancialDashboard/payouts
GET /v1/PaymentLink
POST /v1/PaymentLink
PATCH /v1/PaymentLink/{}
DELETE /v1/PaymentLink/{}
POST /v1/PaymentLink/{}/Activate
POST /v1/PaymentLink/{}/Deactivate
GET /v1/PaymentLink/{}/EmbedCode
GET /v1/PaymentLink/qr/{}
GET /v1/PaymentLink/GetByIdentifier(identifier='{}')
GET /v1/PaymentLink/GetByMerchantSlug(merchantSlug='{}',code='{}')
POST /v1/PaymentLink/CreateInvoice(identifier='{}')
POST /v1/PaymentLink/CreateSubscription(identifier='{}')
POST /v1/PaymentLink/SendVerificationCode(identifier='{}')
GET /v1/SubscriptionProduct
POST /v1/SubscriptionProduct
PATCH /v1/SubscriptionProduct/{}
DELETE /v1/SubscriptionProduct/{}
GET /v1/SubscriptionPlan
POST /v1/SubscriptionPlan
PATCH /v1/SubscriptionPlan/{}
DELETE /v1/SubscriptionPlan/{}
GET /v1/SubscriptionInventoryItem
POST /v1/SubscriptionInventoryItem
PATCH /v1/SubscriptionInventoryItem/{}
DELETE /v1/SubscriptionInventoryItem/{}
POST /v1/payment
GET /v1/payment/{}
POST /v1/payment/{}/capture
POST /v1/invoice/{}/send
GET /v1/subscription
POST /v1/subscription/{}/cancel
POST /v1/transfer
GET /v1/transaction
GET /v1/merchant
POST /v1/merchant
GET /v1/merchantLocation
GET /v1/user
POST /v1/role
GET /v1/scope`,
};

const EVENT_TYPES = `payment.succeeded payment.failed payment.refunded payment.authorized payment.captured payment.released
payment.authorization_expired checkout.session.completed checkout.session.expired checkout.session.cancelled invoice.paid
invoice.payment_failed invoice.past_due invoice.sent invoice.voided invoice.refunded subscription.created
subscription.activated subscription.renewed subscription.payment_failed subscription.past_due subscription.unpaid
subscription.paused subscription.resumed subscription.cancelled subscription.updated payout.completed payout.failed
dispute.opened dispute.updated dispute.closed webhook.test`.split(/\s+/);
/** Till's additions to the document's list (designed in the contract): an invoice past its `validTo`. */
const TILL_EVENT_TYPES = ['invoice.expired'];

/** Operations that answer inside the `{success, errorCode, errorMessage, data}` envelope. */
const ENVELOPE_PATH = /^\/v1\/(subscriptions|plans|customers)(\/|$)/;
const REFUND_PATH = /\/refund$/;
/** Operations that never succeed: `POST /v1/client-token` "always 501", with no authentication. */
const NEVER_SUCCEEDS = new Set(['createClientToken']);
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'];

const normalize = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

describe('the bundled contracts', () => {
  for (const api of ['checkout', 'commerce'] as const) {
    it(`${api}: holds every operation the source documents name, with its exact path`, () => {
      const present = new Set(operations(api).map((o) => `${o.method} ${normalize(o.path)}`));
      const missing = REQUIRED[api].split('\n').filter((line) => !present.has(line));
      expect(missing).toEqual([]);
    });

    it(`${api}: declares OpenAPI 3.1 and says in its first line that it is generated`, () => {
      const text = readFileSync(new URL(`../../generated/${api}.openapi.json`, import.meta.url), 'utf8');
      expect(text.split('\n')[0]).toMatch(/GENERATED by `npm run generate`/);
      expect(docs[api].openapi).toMatch(/^3\.1\./);
    });
  }

  it('counts 99 named operations plus the test helpers and webhook-configuration extras', () => {
    expect(REQUIRED.checkout.split('\n')).toHaveLength(54);
    expect(REQUIRED.commerce.split('\n')).toHaveLength(54);
    expect(allOps.length).toBeGreaterThanOrEqual(108);
  });

  it('gives every operation a unique camelCase operationId across both documents', () => {
    const ids = allOps.map((o) => o.op.operationId);
    for (const o of allOps) expect(o.op.operationId, label(o)).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('states a scope on every operation, in x-scopes and in the description', () => {
    for (const o of allOps) {
      expect(Array.isArray(o.op['x-scopes']), `${label(o)} x-scopes`).toBe(true);
      expect(o.op.description, `${label(o)} description`).toMatch(/Scope/);
      for (const scope of o.op['x-scopes']) expect(o.op.description, `${label(o)} names ${scope}`).toContain(scope);
    }
  });

  it('marks public operations with security: [] and no 401', () => {
    const publicOps = allOps.filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0);
    const names = publicOps.map((o) => o.op.operationId).sort();
    expect(names).toEqual(
      [
        'createClientToken',
        'createPaymentLinkInvoice',
        'createPaymentLinkSubscription',
        'getInvoiceByReference',
        'getInvoiceQrCode',
        'getPaymentLinkByIdentifier',
        'getPaymentLinkByMerchantSlug',
        'getPaymentLinkQrCode',
        'sendPaymentLinkVerificationCode',
      ].sort(),
    );
    for (const o of publicOps) expect(o.op.responses['401'], label(o)).toBeUndefined();
  });

  it('lets publishable-key operations require X-Client-Secret alongside the key', () => {
    const pkOps = allOps.filter((o) => (o.op.security ?? []).some((req: Json) => 'publishableKey' in req));
    // The publishable-key scope table of checkout-billing-api.md, one operation per endpoint.
    expect(pkOps.map((o) => o.op.operationId).sort()).toEqual(
      [
        'retrieveCheckoutSession',
        'confirmCheckoutSession',
        'withdrawCheckoutSessionQr',
        'tokenizeCard',
        'cancelCheckoutSession',
        'getCheckoutSessionStatus',
        'listSavedCards',
        'verifySavedCard',
        'confirmSavedCardOtp',
        'lookupSrcCards',
        'authenticateSrcCard',
      ].sort(),
    );
    for (const o of pkOps) {
      for (const req of o.op.security.filter((r: Json) => 'publishableKey' in r)) {
        expect(Object.keys(req).sort(), label(o)).toEqual(['clientSecret', 'publishableKey']);
      }
    }
  });

  it('takes Idempotency-Key on every POST (except one whose answer holds new secrets, which is never stored: x-answer-holds-secret)', () => {
    for (const o of allOps.filter((x) => x.method === 'POST' && !x.op['x-answer-holds-secret'])) {
      const params = [...(o.pathItem.parameters ?? []), ...(o.op.parameters ?? [])].map((p: Json) => deref(docs[o.api], p));
      expect(
        params.some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key'),
        label(o),
      ).toBe(true);
    }
  });

  it('gives every operation a success response with a schema and an example', () => {
    for (const o of allOps) {
      if (NEVER_SUCCEEDS.has(o.op.operationId)) continue;
      const codes = Object.keys(o.op.responses).filter((c) => /^2/.test(c));
      expect(codes.length, `${label(o)} has a 2xx`).toBeGreaterThan(0);
      for (const code of codes) {
        const res = deref(docs[o.api], o.op.responses[code]);
        if (code === '204') {
          expect(res.content, `${label(o)} 204 has no body`).toBeUndefined();
          continue;
        }
        const media = Object.values<Json>(res.content ?? {});
        expect(media.length, `${label(o)} ${code} has content`).toBeGreaterThan(0);
        for (const m of media) {
          expect(m.schema, `${label(o)} ${code} schema`).toBeDefined();
          const hasExample = m.example !== undefined || Object.keys(m.examples ?? {}).length > 0;
          expect(hasExample, `${label(o)} ${code} example`).toBe(true);
        }
      }
    }
  });

  it('gives every error response a body schema in the documented shape, with examples', () => {
    for (const o of allOps) {
      const envelope = o.api === 'checkout' && (ENVELOPE_PATH.test(o.path) || REFUND_PATH.test(o.path));
      for (const [code, raw] of Object.entries<Json>(o.op.responses)) {
        if (!/^[45]/.test(code)) continue;
        const res = deref(docs[o.api], raw);
        const media = res.content?.['application/json'];
        expect(media?.schema, `${label(o)} ${code} body`).toBeDefined();
        const schema = deref(docs[o.api], media.schema);
        const shape = schema.properties?.success ? 'envelope' : schema.properties?.error ? 'general' : 'other';
        expect(shape, `${label(o)} ${code}`).toBe(envelope ? 'envelope' : 'general');
        expect(Object.keys(media.examples ?? {}).length, `${label(o)} ${code} examples`).toBeGreaterThan(0);
      }
    }
  });

  it('lists 401, 429, 500, 501 and 503 on every keyed operation and only documented statuses anywhere', () => {
    const allowed = new Set(['400', '401', '403', '404', '409', '429', '500', '501', '502', '503']);
    for (const o of allOps) {
      const errors = Object.keys(o.op.responses).filter((c) => /^[45]/.test(c));
      for (const c of errors) expect(allowed.has(c), `${label(o)} ${c}`).toBe(true);
      if (NEVER_SUCCEEDS.has(o.op.operationId)) {
        // Always 501, whatever the request: the server answers it before reading the body or the query.
        expect(Object.keys(o.op.responses), label(o)).toEqual(['501']);
        continue;
      }
      const isPublic = Array.isArray(o.op.security) && o.op.security.length === 0;
      // 501: an operation a server has not implemented yet answers it, in the documented shape.
      // 503: the database could not be reached; nothing of the request was kept.
      for (const c of isPublic ? ['429', '500', '501', '503'] : ['401', '429', '500', '501', '503']) {
        expect(o.op.responses[c], `${label(o)} lists ${c}`).toBeDefined();
      }
    }
  });

  it('puts the rate-limit headers and X-Request-Id on every response, and Retry-After on 429', () => {
    for (const o of allOps) {
      for (const [code, raw] of Object.entries<Json>(o.op.responses)) {
        const headers = deref(docs[o.api], raw).headers ?? {};
        for (const h of RATE_LIMIT_HEADERS) expect(headers[h], `${label(o)} ${code} ${h}`).toBeDefined();
        if (code === '429') expect(headers['Retry-After'], `${label(o)} 429 Retry-After`).toBeDefined();
      }
    }
  });

  it('answers subscription, plan and customer operations inside the envelope', () => {
    const enveloped = allOps.filter((o) => o.api === 'checkout' && ENVELOPE_PATH.test(o.path));
    expect(enveloped.length).toBe(16);
    for (const o of enveloped) {
      const code = Object.keys(o.op.responses).find((c) => /^2/.test(c))!;
      const schema = deref(docs.checkout, deref(docs.checkout, o.op.responses[code]).content['application/json'].schema);
      const parts = (schema.allOf ?? [schema]).map((s: Json) => deref(docs.checkout, s));
      expect(
        parts.some((p: Json) => p.properties?.success),
        label(o),
      ).toBe(true);
    }
  });

  it('describes every webhook event type with the envelope and a typed data.object', () => {
    const webhooks = docs.checkout.webhooks ?? {};
    expect(Object.keys(webhooks).sort()).toEqual([...EVENT_TYPES, ...TILL_EVENT_TYPES].sort());
    for (const [type, raw] of Object.entries<Json>(webhooks)) {
      const post = deref(docs.checkout, raw).post;
      expect(post?.operationId, type).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      const media = post.requestBody && deref(docs.checkout, post.requestBody).content['application/json'];
      expect(media?.schema, type).toBeDefined();
      const examples = Object.values<Json>(media.examples ?? {}).map((e) => deref(docs.checkout, e).value);
      expect(examples.length, `${type} example`).toBeGreaterThan(0);
      for (const ex of examples) {
        expect(ex.type, `${type} example type`).toBe(type);
        expect(ex.object).toBe('event');
        expect(ex.id).toMatch(/^evt_/);
        expect(ex.created).toBe(ex.createdAt);
        expect(ex.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(['payment', 'checkout_session', 'invoice', 'subscription', 'payout', 'dispute', 'test']).toContain(ex.data.object.object);
      }
    }
  });

  it('keeps the error-code enum holding every code the source documents name', () => {
    const codes: string[] = docs.checkout.components.schemas.ErrorCode.enum;
    for (const code of [
      'amount_too_small',
      'validation_error',
      'invoice_not_found',
      'invoice_not_payable',
      'partial_refund_not_supported',
      'payment_not_refundable',
      'refund_failed',
      'nothing_to_refund',
      'hold_not_capturable',
      'hold_operation_failed',
      'not_implemented',
    ]) {
      expect(codes).toContain(code);
    }
    expect(docs.commerce.components.schemas.ErrorCode.enum).toEqual(codes);
  });

  it('documents the /api/v1 alias of the checkout interface as a server', () => {
    expect(docs.checkout.servers.map((s: Json) => s.url)).toContain('{baseUrl}/api');
  });
});
