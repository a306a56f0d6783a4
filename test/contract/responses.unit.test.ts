// What every operation of the bundled contracts documents about its answers: a success with a
// schema and an example, error bodies in the documented shape, the statuses every keyed operation
// lists, the rate-limit headers, the envelope of the billing operations, and every webhook event.
// What Redocly's rules cannot express; the operations themselves are in operations.unit.test.ts.
import { describe, expect, it } from 'vitest';
import { deref } from '../../server/openapi/document.js';
import { type Json, allOps, docs, label } from '../support/contract.js';

const EVENT_TYPES = `payment.succeeded payment.failed payment.refunded payment.authorized payment.captured payment.released
payment.authorization_expired checkout.session.completed checkout.session.expired checkout.session.cancelled invoice.paid
invoice.payment_failed invoice.past_due invoice.sent invoice.voided invoice.refunded subscription.created
subscription.activated subscription.renewed subscription.payment_failed subscription.past_due subscription.unpaid
subscription.paused subscription.resumed subscription.cancelled subscription.updated payout.completed payout.failed
dispute.opened dispute.updated dispute.closed webhook.test`.split(/\s+/);
/** Till's additions to the document's list (designed in the contract): an invoice past its `validTo`, a transfer's way. */
const TILL_EVENT_TYPES = ['invoice.expired', 'transfer.processing', 'transfer.completed', 'transfer.failed'];

/** Operations that answer inside the `{success, errorCode, errorMessage, data}` envelope. */
const ENVELOPE_PATH = /^\/v1\/(subscriptions|subscription-items|plans|customers)(\/|$)/;
const REFUND_PATH = /\/refund$/;
/** Operations that never succeed: `POST /v1/client-token` "always 501", with no authentication. */
const NEVER_SUCCEEDS = new Set(['createClientToken']);
/** Till's design: `POST /v1/test-helpers/server-error` fails on purpose, as an unexpected failure does (500), to test a client's retries. */
const FAILS_BY_DESIGN = new Set(['simulateServerError']);
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'];

describe('the bundled contracts', () => {
  it('gives every operation a success response with a schema and an example', () => {
    for (const o of allOps) {
      if (NEVER_SUCCEEDS.has(o.op.operationId)) continue;
      if (FAILS_BY_DESIGN.has(o.op.operationId)) {
        expect(
          Object.keys(o.op.responses).filter((c) => /^2/.test(c)),
          `${label(o)} has no 2xx`,
        ).toEqual([]);
        expect(o.op.responses['500']?.$ref, `${label(o)} 500 is the shared ServerError`).toMatch(/\/ServerError$/);
        continue;
      }
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
    expect(enveloped.length).toBe(17);
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
        expect(['payment', 'checkout_session', 'invoice', 'subscription', 'payout', 'dispute', 'transfer', 'test']).toContain(ex.data.object.object);
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
