// verifyWebhook: the signature over the raw body in constant time, the event's age, and errors
// that say what to do. No network.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signTestWebhook, TillWebhookVerificationError, verifyWebhook, webhookSignatureHeader } from '../src/index.js';
import type { WebhookEvent, WebhookEventOf } from '../src/index.js';

const secret = 'whsec_bFKvZht6gabyMCZtueYTXHoN7Xl+4GGos6Mz7DyGRAU=';
const now = new Date('2026-11-23T10:00:00Z');
const event: WebhookEventOf<'webhook.test'> = {
  id: 'evt_7Qm2Lx9Vb4Rt8Kc1',
  object: 'event',
  type: 'webhook.test',
  apiVersion: '2026-11-01',
  created: now.toISOString(),
  createdAt: now.toISOString(),
  livemode: false,
  merchantId: 7,
  data: { object: { object: 'test', id: 'test_8Jw3Ne5Yr2Bs6Hc4', message: 'hello', eventType: 'webhook.test', isLive: false, createdAt: now.toISOString() } },
};
const body = JSON.stringify(event);
const hmac = (b: string, s: string) => `sha256=${createHmac('sha256', s).update(b).digest('hex')}`;

function refusal(fn: () => unknown): TillWebhookVerificationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TillWebhookVerificationError);
    return err as TillWebhookVerificationError;
  }
  throw new Error('expected a refusal');
}

describe('verifyWebhook', () => {
  it('returns the typed event for a body signed with sha256= and the hex HMAC-SHA256 of the raw body', () => {
    const verified: WebhookEvent = verifyWebhook(body, hmac(body, secret), secret, { now });
    expect(verified).toEqual(event);
    expect(verified.type).toBe('webhook.test');
    // Bytes work as well as text.
    expect(verifyWebhook(Buffer.from(body), hmac(body, secret), secret, { now }).id).toBe(event.id);
  });

  it('refuses a signature that does not match, naming the secret and the raw body', () => {
    const other = refusal(() => verifyWebhook(body, hmac(body, 'whsec_another_secret_entirely'), secret, { now }));
    expect(other.code).toBe('signature_mismatch');
    expect(other.message).toMatch(/does not match/);
    expect(other.message).toMatch(/raw body/);
    const tampered = refusal(() => verifyWebhook(body.replace('"merchantId":7', '"merchantId":8'), hmac(body, secret), secret, { now }));
    expect(tampered.code).toBe('signature_mismatch');
    expect(refusal(() => verifyWebhook(body, 'sha256=zz', secret, { now })).code).toBe('signature_mismatch');
    expect(refusal(() => verifyWebhook(body, hmac(body, secret).toUpperCase(), secret, { now })).code).toBe('signature_mismatch');
  });

  it('asks for the raw body when a parsed object is passed', () => {
    const err = refusal(() => verifyWebhook(event as unknown as string, hmac(body, secret), secret, { now }));
    expect(err.code).toBe('raw_body_required');
    expect(err.message).toMatch(/raw request body/);
    expect(err.message).toMatch(/express\.raw/);
  });

  it('refuses a missing signature header', () => {
    expect(refusal(() => verifyWebhook(body, undefined, secret, { now })).code).toBe('signature_missing');
  });

  it('refuses an event whose created is outside the tolerance (300 s by default), either way', () => {
    expect(verifyWebhook(body, hmac(body, secret), secret, { now: now.getTime() + 299_000 }).id).toBe(event.id);
    const stale = refusal(() => verifyWebhook(body, hmac(body, secret), secret, { now: now.getTime() + 301_000 }));
    expect(stale.code).toBe('event_stale');
    expect(stale.message).toMatch(/tolerance of 300 s/);
    expect(refusal(() => verifyWebhook(body, hmac(body, secret), secret, { now: now.getTime() - 301_000 })).code).toBe('event_stale');
    expect(verifyWebhook(body, hmac(body, secret), secret, { now: now.getTime() + 3_600_000, toleranceSeconds: 7200 }).id).toBe(event.id);
  });

  it('checks the signature before the age, so a forged old event reads as a bad signature', () => {
    expect(refusal(() => verifyWebhook(body, hmac(body, 'x'.repeat(20)), secret, { now: now.getTime() + 10_000_000 })).code).toBe('signature_mismatch');
  });
});

describe('building signatures for your own tests', () => {
  it('webhookSignatureHeader matches what Till sends, and signTestWebhook builds a delivery verifyWebhook accepts', () => {
    expect(webhookSignatureHeader(body, secret)).toBe(hmac(body, secret));
    const delivery = signTestWebhook(event, secret, { now });
    expect(delivery.headers).toMatchObject({ 'x-webhook-id': event.id, 'x-webhook-event': 'webhook.test', 'x-webhook-timestamp': String(now.getTime() / 1000) });
    expect(verifyWebhook(delivery.body, delivery.headers['x-webhook-signature'], secret, { now })).toEqual(event);
  });
});
