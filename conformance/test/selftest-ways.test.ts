// The breaking proxy's ways: each changes exactly what its bug would, and an answer it has nothing
// to change is left alone (so the proxy forwards it byte for byte).
import { describe, expect, it } from 'vitest';
import { type Exchange, flipLastLetter, SELFTEST_WAYS, WAYS } from '../selftest/ways.js';

const exchange = (json: unknown, over: Partial<Exchange> = {}): Exchange => ({ method: 'GET', url: '/v1/plans', status: 200, headers: {}, json, ...over });

describe('the breaking proxy ways', () => {
  it('lists every way the issue names, and the fail-fast measure apart', () => {
    expect(SELFTEST_WAYS).toHaveLength(11);
    expect(SELFTEST_WAYS).not.toContain('drop-id');
    for (const name of SELFTEST_WAYS) expect(WAYS[name]!.answer || WAYS[name]!.request || ['replay-body', 'cross-merchant'].includes(name)).toBeTruthy();
  });

  it('drops the required field at every depth', () => {
    const e = exchange({ currency: 'USD', items: [{ currency: 'EUR', amount: 1 }] });
    expect(WAYS['drop-required']!.answer!(e)).toBe(true);
    expect(e.json).toEqual({ items: [{ amount: 1 }] });
    expect(WAYS['drop-required']!.answer!(exchange({ name: 'x' }))).toBe(false);
  });

  it('answers an amount one minor unit high, by the currency or the decimal string', () => {
    const e = exchange({ data: [{ amount: 10, currency: 'USD' }, { amount: 500, currency: 'JPY' }, { amount: '10.00' }, { amount: 1.005, currency: 'KWD' }] });
    WAYS['amount-off-by-one']!.answer!(e);
    const amounts = (e.json as { data: { amount: unknown }[] }).data.map((d) => d.amount);
    expect(amounts[0]).toBeCloseTo(10.01, 10);
    expect(amounts[1]).toBe(501);
    expect(amounts[2]).toBe('10.01');
    expect(amounts[3]).toBeCloseTo(1.006, 10);
  });

  it('reverses list pages of reads only', () => {
    const e = exchange({ object: 'list', data: [{ id: 2 }, { id: 1 }] });
    expect(WAYS['list-order']!.answer!(e)).toBe(true);
    expect((e.json as { data: { id: number }[] }).data.map((d) => d.id)).toEqual([1, 2]);
    expect(WAYS['list-order']!.answer!(exchange({ data: [{ id: 2 }, { id: 1 }] }, { method: 'POST' }))).toBe(false);
    expect(WAYS['list-order']!.answer!(exchange({ data: [{ id: 1 }] }))).toBe(false);
  });

  it('flips a signing secret the same way in requests and answers, so the suite sees its own secret back', () => {
    expect(flipLastLetter('whsec_abc123==')).toBe('whsec_abC123==');
    expect(flipLastLetter(flipLastLetter('conformance-secret-0123'))).toBe('conformance-secret-0123');
    const body = { sandboxUrl: 'https://x.invalid', sandboxSecret: 'conformance-sandbox-0123456789' };
    expect(WAYS['wrong-signature']!.request!('POST', '/v1/WebhookConfiguration', body)).toBe(true);
    expect(body.sandboxSecret).toBe('conformance-sandboX-0123456789');
  });

  it('keeps only the test events in a delivery log when webhooks are never sent', () => {
    const log = { data: [{ eventType: 'payment.succeeded' }, { eventType: 'webhook.test' }], hasMore: false };
    const e = exchange(log, { url: '/v1/WebhookConfiguration/7/deliveries?limit=100' });
    expect(WAYS['never-sent']!.answer!(e)).toBe(true);
    expect(log.data).toEqual([{ eventType: 'webhook.test' }]);
    expect(WAYS['never-sent']!.answer!(exchange({ data: [{ eventType: 'payment.succeeded' }] }, { url: '/v1/events' }))).toBe(false);
  });

  it('answers 200 for 201, drops the rate-limit headers, and cases the status the other way', () => {
    const created = exchange({ id: 1 }, { method: 'POST', status: 201 });
    expect(WAYS['wrong-status']!.answer!(created)).toBe(true);
    expect(created.status).toBe(200);
    const limited = exchange({}, { headers: { 'x-ratelimit-limit': '100', 'x-request-id': 'req_1' } });
    WAYS['no-rate-limit-headers']!.answer!(limited);
    expect(limited.headers).toEqual({ 'x-request-id': 'req_1' });
    const statuses = exchange({ data: [{ status: 'open' }, { status: 'Paid' }] });
    WAYS['unknown-enum']!.answer!(statuses);
    expect(statuses.json).toEqual({ data: [{ status: 'OPEN' }, { status: 'paid' }] });
  });
});
