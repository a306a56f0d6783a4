// The request log's batch writer and its redaction, on a database of their own: batches of one
// INSERT, a bounded queue that drops (and counts) what does not fit, a failed batch that never
// throws, bodies redacted by field name and by value before anything is queued.
import { describe, expect, it } from 'vitest';
import { needsNoRedaction, redactJson, redactText } from '../../server/domain/request-logs/redact.js';
import { type CapturedRequest, RequestLogWriter } from '../../server/domain/request-logs/request-log.writer.js';
import { useTestDatabase } from '../support/domain.js';

const database = useTestDatabase('request-log-writer');
const warnings: string[] = [];
const log = { warn: (_fields: Record<string, unknown>, message: string) => void warnings.push(message) };

let n = 0;
const captured = (merchantId: number, extra: Partial<CapturedRequest> = {}): CapturedRequest => ({
  tenant: { merchantId, livemode: false },
  method: 'POST',
  path: '/v1/customers',
  operationId: 'createCustomer',
  status: 201,
  durationMs: 3.25,
  requestId: `req_writer${(++n).toString(36)}`,
  idempotencyKey: null,
  keyPrefix: 'sk_test_AbCd',
  clientAddress: '127.0.0.1',
  requestBody: { email: 'ana@example.com' },
  responseText: '{"success":true}',
  receivedAt: new Date(),
  ...extra,
});
const rowsOf = (merchantId: number) => database.db.selectFrom('request_logs').selectAll().where('merchant_id', '=', merchantId).execute();

describe('the batch writer', () => {
  it('writes what it queued when flushed, in batches of its size', async () => {
    const writer = new RequestLogWriter(database.db, log, { flushMs: 60_000, batchSize: 3 });
    for (let i = 0; i < 7; i++) writer.record(captured(9101));
    await writer.close();
    expect(await rowsOf(9101)).toHaveLength(7);
    expect(writer.counts()).toMatchObject({ written: 7, dropped: 0, failed: 0, queued: 0 });
  });

  it('writes each column as captured: quotes, backslashes and other scripts in text, nulls, the duration, the time to the millisecond', async () => {
    const writer = new RequestLogWriter(database.db, log, { flushMs: 60_000 });
    const receivedAt = new Date('2026-11-28T21:45:01.234Z');
    const odd = 'a "quoted" \\ back\\slash, {braces}, ünïcödé, 日本, emoji 🎉, tab\t, newline\n';
    writer.record(
      captured(9105, {
        method: 'PATCH',
        path: `/v1/customers/12?q=${encodeURIComponent(odd)}`,
        status: 422,
        durationMs: 1234.567,
        idempotencyKey: odd,
        keyPrefix: null,
        clientAddress: null,
        requestBody: { name: odd, nested: [1, null, { deep: odd }] },
        responseText: JSON.stringify({ success: false, errorMessage: odd }),
        receivedAt,
      }),
    );
    await writer.close();
    const [row] = await rowsOf(9105);
    expect(row).toMatchObject({
      livemode: false,
      method: 'PATCH',
      path: `/v1/customers/12?q=${encodeURIComponent(odd)}`,
      operation_id: 'createCustomer',
      status: 422,
      duration_ms: 1234.567,
      idempotency_key: odd,
      key_prefix: null,
      client_address: null,
      created_at: receivedAt,
    });
    expect(JSON.parse(row!.request_body!)).toEqual({ name: odd, nested: [1, null, { deep: odd }] });
    expect(JSON.parse(row!.response_body!)).toEqual({ success: false, errorMessage: odd });
  });

  it('drops and counts what does not fit a full queue, with a warning, and never throws', async () => {
    const writer = new RequestLogWriter(database.db, log, { flushMs: 60_000, batchSize: 100, maxQueued: 3 });
    for (let i = 0; i < 5; i++) writer.record(captured(9102));
    expect(writer.counts()).toMatchObject({ dropped: 2, queued: 3 });
    await writer.close();
    expect(await rowsOf(9102)).toHaveLength(3);
    expect(warnings).toContain('request log: the queue was full; requests were not logged');
  });

  it('loses a batch its INSERT refuses, with a warning, and goes on with the next', async () => {
    const writer = new RequestLogWriter(database.db, log, { flushMs: 60_000, batchSize: 1 });
    writer.record(captured(9103, { method: 'x'.repeat(10), requestId: null as unknown as string }));
    writer.record(captured(9103));
    await writer.close();
    expect(writer.counts()).toMatchObject({ written: 1, failed: 1 });
    expect(await rowsOf(9103)).toHaveLength(1);
  });

  it('keeps a body larger than its limit as a note of its size', async () => {
    const writer = new RequestLogWriter(database.db, log, { flushMs: 60_000, maxBodyBytes: 100 });
    writer.record(captured(9104, { requestBody: { note: 'y'.repeat(500) }, responseText: undefined }));
    await writer.close();
    const [row] = await rowsOf(9104);
    expect(JSON.parse(row!.request_body!)).toMatch(/^\[not kept: \d+ bytes\]$/);
    expect(row!.response_body).toBeNull();
  });
});

describe('redaction', () => {
  it('removes card numbers, security codes and secrets by field name, whatever they hold', () => {
    expect(redactJson({ card: { number: '4111111111111111', CVC: '123', exp_month: 12 }, Client_Secret: 'abc', otp: 123456, rotateLiveSecret: true })).toEqual({
      card: { number: '[redacted]', CVC: '[redacted]', exp_month: 12 },
      Client_Secret: '[redacted]',
      otp: '[redacted]',
      rotateLiveSecret: true,
    });
  });

  it('removes Luhn-valid digit runs, whole keys, client and notification secrets by value, under any name', () => {
    const text = 'pay 4242 4242 4242 4242 or 5555-5555-5555-4444 with sk_live_AbCdEfGh1234567890AbCd, cs_test_Ab12_secret_Zz99 and whsec_Q1w2e3';
    expect(redactText(text)).toBe('pay [redacted] or [redacted] with [redacted], [redacted] and [redacted]');
    expect(redactJson({ memo: ['rk_test_AbCdEfGh1234567890'], amount: 4242424242424242, when: 1764230400123 })).toEqual({
      memo: ['[redacted]'],
      amount: '[redacted]',
      when: 1764230400123,
    });
  });

  it('keeps digit runs that fail Luhn, short numbers and key prefixes', () => {
    expect(redactText('order 4242424242424241, ref 12345, key sk_test_AbCd')).toBe('order 4242424242424241, ref 12345, key sk_test_AbCd');
  });

  it('keeps an answer as it is only when redacting it would change nothing', () => {
    const plain = [
      '{"success":true,"errorCode":null,"errorMessage":null,"data":{"id":12,"name":"Gold","amount":"25.00","currency":"USD","createdAt":"2026-11-27T10:00:00.000Z"}}',
      '{"object":"list","data":[{"id":"prod_1","name":"Tea","metadata":{"shelf":"A-3"}}],"hasMore":false}',
    ];
    const secret = [
      '{"id":"cs_test_Ab","clientSecret":"cs_test_Ab_secret_Zz99"}',
      '{"card":{"Card-Number":"4111 1111 1111 1111"}}',
      '{"c_v_c":"123"}',
      '{"note":"sk_test_AbCdEfGh1234567890AbCd"}',
      '{"cvc":"123"}',
      '{"PIN":"0000"}',
      '{"\\u0063vc":"123"}',
      '{"n":4.242424242424242e15}',
      '{"when":4242424242424242}',
    ];
    for (const text of plain) {
      expect(needsNoRedaction(text), text).toBe(true);
      expect(JSON.stringify(redactJson(JSON.parse(text))), text).toBe(text);
    }
    for (const text of secret) expect(needsNoRedaction(text), text).toBe(false);
  });

  it('judges every answer the writer stores as is the way redaction would', () => {
    // Field names and values built from parts of secret names, digits and separators: whenever the
    // quick judgement keeps a text, redacting it parsed changes nothing.
    const parts = ['id', 'name', 'c', 'v', 'vc', '_', '-', 'Card', 'num', 'ber', 'Se', 'cret', 'p', 'an', 'in', 'k', 'ey', 'o', 'tp'];
    const names = [...parts, ...parts.flatMap((a) => parts.map((b) => a + b)), 'card_number', 'Security-Code', 'c-v-v', 'api_key'];
    const values = ['"4242424242424242"', '"4242 4242"', '12', '"ok"', 'true', '1764230400123', '"whsec_a"', '"cs_x_secret_y"', 'null'];
    let kept = 0;
    for (const name of names)
      for (const value of values) {
        const text = `{"${name}":${value},"seq":1}`;
        if (!needsNoRedaction(text)) continue;
        kept++;
        expect(JSON.stringify(redactJson(JSON.parse(text))), text).toBe(text);
      }
    expect(kept).toBeGreaterThan(100);
  });
});
