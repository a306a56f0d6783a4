// POST /v1/test-helpers/server-error: fails as an unexpected failure does, so a client can test its
// retries. The answer is the real error path's (500 server_error in the documented shape, retryable,
// with the request id), nothing internal leaks, the server logs it at error level with the request id
// (marked deliberate), a live key is refused, and an Idempotency-Key does not keep the 500: a retry
// with the same key runs again.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.js';
import { catalog } from '../../server/shared/errors.js';
import { ContractValidator, loadBundledContracts } from '../../conformance/validator.js';
import { useTestServer } from '../support/server.js';

/** Every line the server logs, parsed. */
const logged: { level: number; msg: string; requestId?: string; err?: { message?: string } }[] = [];
const t = useTestServer({ logger: createLogger('debug', { write: (line: string) => void logged.push(JSON.parse(line)) }) });
const validator = new ContractValidator(loadBundledContracts());
const PATH = '/v1/test-helpers/server-error';
const sk = () => t.merchantA.keys.test.secret;
const deliberate = () => logged.filter((l) => l.level === 50 && l.err?.message === 'test helper: deliberate server error');

describe('POST /v1/test-helpers/server-error', () => {
  it('answers 500 server_error in the documented shape, retryable as the catalogue says, with the request id', async () => {
    const res = await t.call('POST', PATH, { key: sk() });
    expect(res.status, res.text).toBe(500);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    expect(res.json).toEqual({
      error: { type: 'server_error', code: 'internal_error', message: catalog.internal_error.message, retryable: true, requestId },
    });
    expect(catalog.internal_error.retryable).toBe(true);
    // The catalogue sends no Retry-After for internal_error (only service_unavailable and rate limits do).
    expect(res.headers.get('retry-after')).toBeNull();
    expect(validator.validateResponse('simulateServerError', 500, res.headers, res.text)).toEqual([]);
  });

  it('leaks nothing: no error name, message, stack frame or file path', async () => {
    const res = await t.call('POST', PATH, { key: sk(), body: { anything: 'at all' } });
    expect(res.status).toBe(500);
    expect(res.text).not.toMatch(/Error:|deliberate|test helper|\bat \S+ \(|\n\s+at |\/work\/|node_modules|\.ts:\d+|\.js:\d+/);
  });

  it('is logged at error level with the request id, marked deliberate', async () => {
    const before = deliberate().length;
    const res = await t.call('POST', PATH, { key: sk() });
    const lines = deliberate().slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('refuses a live key with 403 livemode_not_allowed, without failing', async () => {
    const before = deliberate().length;
    const res = await t.call('POST', PATH, { key: t.merchantA.keys.live.secret });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ type: 'permission_denied', code: 'livemode_not_allowed' });
    expect(deliberate()).toHaveLength(before);
  });

  it('does not keep the 500 as the Idempotency-Key answer: a retry with the same key runs again', async () => {
    const key = `retry-500-${Date.now()}`;
    const before = deliberate().length;
    const first = await t.call('POST', PATH, { key: sk(), headers: { 'Idempotency-Key': key } });
    const retry = await t.call('POST', PATH, { key: sk(), headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(500);
    expect(retry.status).toBe(500);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(retry.json.error.requestId).toBe(retry.headers.get('x-request-id'));
    expect(deliberate().length - before).toBe(2);
  });
});
