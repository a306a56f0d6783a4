// The request log (issue 34): every API request of a merchant, on either interface, with its
// answer; card numbers, security codes and secrets never stored nor shown; lists with filters;
// one merchant and one mode never see another's; a restricted key needs `requestlog.read`; rows
// older than 30 days are swept; written in batches, none lost, replays included.
import { describe, expect, it, vi } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { deleteExpiredRequestLogs } from '../../server/domain/request-logs/request-log.service.js';
import { CARDS, cardDetails } from '../support/checkout.js';
import { createTestSession, useTestServer } from '../support/server.js';

const t = useTestServer();
const WAIT = { timeout: 15_000, interval: 50 };

/** The merchant's test-mode logs of one request, once written. */
async function logOf(m: MerchantCredentials, requestId: string) {
  return vi.waitFor(async () => {
    const res = await t.call('GET', `/v1/request-logs?requestId=${requestId}`, { key: m.keys.test.secret });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toHaveLength(1);
    return res.json.data[0];
  }, WAIT);
}

describe('recording', () => {
  it('lists a request with its method, path, operation, status, duration, ids, key prefix, address and bodies', async () => {
    const m = await t.newMerchant('Logged');
    const created = await t.call('POST', '/v1/customers', {
      key: m.keys.test.secret,
      headers: { 'idempotency-key': 'log-cust-1' },
      body: { email: 'ana@example.com', name: 'Ana' },
    });
    expect(created.status, created.text).toBe(201);
    const requestId = created.headers.get('x-request-id')!;
    const log = await logOf(m, requestId);
    expect(log).toMatchObject({
      object: 'request_log',
      method: 'POST',
      path: '/v1/customers',
      operationId: 'createCustomer',
      status: 201,
      requestId,
      idempotencyKey: 'log-cust-1',
      keyPrefix: m.keys.test.secret.slice(0, 12),
      requestBody: { email: 'ana@example.com', name: 'Ana' },
      livemode: false,
    });
    expect(log.id).toMatch(/^rl_/);
    expect(log.durationMs).toBeGreaterThanOrEqual(0);
    expect(log.clientAddress).toMatch(/127\.0\.0\.1/);
    expect(log.responseBody).toEqual(created.json);
    const one = await t.call('GET', `/v1/request-logs/${log.id}`, { key: m.keys.test.secret });
    expect(one.status, one.text).toBe(200);
    expect(one.json).toEqual(log);
    const commerce = await t.call('GET', `/v1/RequestLog/${log.id}`, { apiKey: m.keys.test.secret });
    expect(commerce.status, commerce.text).toBe(200);
    expect(commerce.json).toMatchObject({ id: log.id, statusCode: 201, operationId: 'createCustomer', isLive: false, requestId });
  });

  it('records Commerce requests and errors after authentication, and not a request without a valid key', async () => {
    const m = await t.newMerchant('Errors');
    const missing = await t.call('GET', '/v1/invoice/999999', { apiKey: m.keys.test.secret });
    expect(missing.status, missing.text).toBe(404);
    const log = await logOf(m, missing.headers.get('x-request-id')!);
    expect(log).toMatchObject({ method: 'GET', status: missing.status, keyPrefix: m.keys.test.secret.slice(0, 12) });
    expect(log.responseBody.error.requestId).toBe(missing.headers.get('x-request-id'));
    const refused = await t.call('GET', '/v1/customers', { key: 'sk_test_notARealKeyAtAll1234567890' });
    expect(refused.status).toBe(401);
    await logOf(m, missing.headers.get('x-request-id')!);
    const rows = await t.database.db.selectFrom('request_logs').select('id').where('request_id', '=', refused.headers.get('x-request-id')!).execute();
    expect(rows).toEqual([]);
  });

  it('keeps card numbers, security codes, keys and client secrets out of the stored row and the answer', async () => {
    const m = await t.newMerchant('Redacted');
    const session = await createTestSession(t, m);
    const tokenized = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
      key: m.keys.test.publishable,
      clientSecret: session.clientSecret,
      body: cardDetails(CARDS.visa, '737'),
    });
    expect(tokenized.status, tokenized.text).toBeLessThan(300);
    const refused = await t.call('POST', '/v1/customers', {
      key: m.keys.test.secret,
      body: { email: 'bo@example.com', note: `card 4000 0566 5566 5556 and ${m.keys.live.secret}`, cvv: '321', stolen: session.clientSecret },
    });
    expect(refused.status).toBe(400);
    const logs = [
      await logOf(m, tokenized.headers.get('x-request-id')!),
      await logOf(m, refused.headers.get('x-request-id')!),
      await logOf(m, (await t.call('GET', `/v1/checkout-sessions/${session.id}`, { key: m.keys.test.secret })).headers.get('x-request-id')!),
    ];
    expect(logs[0].requestBody).toMatchObject({ cardNumber: '[redacted]', cvc: '[redacted]', expiryMonth: 12 });
    expect(logs[0].keyPrefix).toBe(m.keys.test.publishable.slice(0, 12));
    expect(logs[1].requestBody).toEqual({ email: 'bo@example.com', note: 'card [redacted] and [redacted]', cvv: '[redacted]', stolen: '[redacted]' });
    const rows = await t.database.db.selectFrom('request_logs').selectAll().where('merchant_id', '=', m.merchantId).execute();
    const stored = rows.find((r) => r.id === logs[0].id)!;
    expect(JSON.parse(stored.request_body!)).toMatchObject({ cardNumber: '[redacted]', cvc: '[redacted]' });
    expect(JSON.parse(rows.find((r) => r.id === logs[1].id)!.request_body!)).toMatchObject({ cvv: '[redacted]' });
    // The session's answer carries its client secret: stored and shown redacted.
    expect(logs[2].responseBody.clientSecret ?? '[redacted]').toBe('[redacted]');
    for (const text of [JSON.stringify(logs), JSON.stringify(rows)]) {
      for (const secret of [CARDS.visa, '4000056655665556', m.keys.live.secret, m.keys.test.secret, m.keys.test.publishable, session.clientSecret]) {
        expect(text).not.toContain(secret);
      }
    }
  });
});

describe('lists', () => {
  it('filter by status, operation, request id and date range, and page newest first', async () => {
    const m = await t.newMerchant('Filters');
    const key = m.keys.test.secret;
    const before = new Date(Date.now() - 1000).toISOString();
    const ok = await t.call('GET', '/v1/customers', { key });
    const bad = await t.call('GET', '/v1/customers/cus_doesNotExist123', { key });
    const third = await t.call('GET', '/v1/plans', { key });
    expect([ok.status, bad.status, third.status]).toEqual([200, 400, 200]);
    await logOf(m, third.headers.get('x-request-id')!);
    await logOf(m, bad.headers.get('x-request-id')!);
    const list = async (q: string) => (await t.call('GET', `/v1/request-logs?${q}`, { key })).json;
    const all = await list('limit=100');
    const ids = [third, bad, ok].map((r) => r.headers.get('x-request-id'));
    expect(all.data.map((l: any) => l.requestId).filter((id: string) => ids.includes(id))).toEqual(ids);
    expect((await list('status=400')).data.map((l: any) => l.requestId)).toEqual([ids[1]]);
    expect((await list('operationId=listPlans')).data.map((l: any) => l.requestId)).toEqual([ids[0]]);
    expect((await list(`createdFrom=${before}&operationId=listCustomers`)).data.map((l: any) => l.requestId)).toEqual([ids[2]]);
    expect((await list(`createdTo=${before}`)).data).toEqual([]);
    const first = await list('limit=1');
    expect(first.hasMore).toBe(true);
    const next = await list(`limit=1&startingAfter=${first.data[0].id}`);
    expect(next.data[0].id).not.toBe(first.data[0].id);
    const unknown = await t.call('GET', '/v1/request-logs?startingAfter=rl_doesNotExist1', { key });
    expect(unknown.status).toBe(404);
    const odata = await t.call('GET', `/v1/RequestLog?$filter=${encodeURIComponent('statusCode eq 400')}&$count=true`, { apiKey: key });
    expect(odata.status, odata.text).toBe(200);
    expect(odata.json.value.map((l: any) => l.requestId)).toEqual([ids[1]]);
    expect(odata.json['@odata.count']).toBe(1);
  });

  it("never shows another merchant's or the other mode's logs", async () => {
    const m = await t.newMerchant('Tenancy');
    const res = await t.call('GET', '/v1/customers', { key: m.keys.test.secret });
    const log = await logOf(m, res.headers.get('x-request-id')!);
    for (const key of [t.merchantB.keys.test.secret, m.keys.live.secret]) {
      expect((await t.call('GET', `/v1/request-logs/${log.id}`, { key })).status).toBe(404);
      expect((await t.call('GET', `/v1/RequestLog/${log.id}`, { apiKey: key })).status).toBe(404);
      const list = await t.call('GET', '/v1/request-logs?limit=100', { key });
      expect(list.json.data.map((l: any) => l.id)).not.toContain(log.id);
    }
  });

  it('refuses a restricted key without requestlog.read and answers one with it', async () => {
    const m = await t.newMerchant('Scopes');
    const sk = m.keys.test.secret;
    const keyOf = async (scopes: string[]) => {
      const role = await t.call('POST', '/v1/role', { apiKey: sk, body: { name: `r ${scopes.join(' ')}`, scopes } });
      expect(role.status, role.text).toBe(201);
      const key = await t.call('POST', `/v1/role/${role.json.id}/keys`, { apiKey: sk, body: { description: 'logs' } });
      return key.json.key as string;
    };
    const without = await keyOf(['invoice.read']);
    const withScope = await keyOf(['requestlog.read']);
    const refused = await t.call('GET', '/v1/request-logs', { key: without });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('permission_denied');
    expect((await t.call('GET', '/v1/RequestLog', { apiKey: without })).status).toBe(403);
    expect((await t.call('GET', '/v1/request-logs', { key: withScope })).status).toBe(200);
    expect((await t.call('GET', '/v1/RequestLog', { apiKey: withScope })).status).toBe(200);
  });
});

describe('writing and keeping', () => {
  it('writes N concurrent requests in batches, none lost, idempotent replays included', async () => {
    const m = await t.newMerchant('Batches');
    const key = m.keys.test.secret;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => t.call('GET', `/v1/customers?limit=${(i % 10) + 1}`, { key })));
    const body = { email: 'replay@example.com' };
    const first = await t.call('POST', '/v1/customers', { key, headers: { 'idempotency-key': 'replayed-1' }, body });
    const replay = await t.call('POST', '/v1/customers', { key, headers: { 'idempotency-key': 'replayed-1' }, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const wanted = [...answers, first, replay].map((r) => r.headers.get('x-request-id')!);
    await vi.waitFor(async () => {
      const rows = await t.database.db.selectFrom('request_logs').select('request_id').where('merchant_id', '=', m.merchantId).execute();
      expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set(wanted));
    }, WAIT);
    const replayed = await logOf(m, replay.headers.get('x-request-id')!);
    expect(replayed).toMatchObject({ idempotencyKey: 'replayed-1', status: 201, responseBody: first.json });
  });

  it('sweeps logs older than 30 days and keeps younger ones', async () => {
    const m = await t.newMerchant('Retention');
    const res = await t.call('GET', '/v1/customers', { key: m.keys.test.secret });
    const log = await logOf(m, res.headers.get('x-request-id')!);
    const day = 24 * 3600_000;
    await t.database.db
      .insertInto('request_logs')
      .values({ ...row(m.merchantId), id: 'rl_oldOneOld0001', created_at: new Date(Date.now() - 31 * day) })
      .execute();
    await deleteExpiredRequestLogs(t.database.db, new Date());
    const left = (await t.database.db.selectFrom('request_logs').select('id').where('merchant_id', '=', m.merchantId).execute()).map((r) => r.id);
    expect(left).toContain(log.id);
    expect(left).not.toContain('rl_oldOneOld0001');
    await deleteExpiredRequestLogs(t.database.db, new Date(Date.now() + 31 * day));
    expect(await t.database.db.selectFrom('request_logs').select('id').where('merchant_id', '=', m.merchantId).execute()).toEqual([]);
  });
});

const row = (merchantId: number) => ({
  merchant_id: merchantId,
  livemode: false,
  method: 'GET',
  path: '/v1/customers',
  operation_id: 'listCustomers',
  status: 200,
  duration_ms: 1.5,
  request_id: 'req_oldOneOld0001',
  idempotency_key: null,
  key_prefix: null,
  client_address: null,
  request_body: null,
  response_body: null,
});
