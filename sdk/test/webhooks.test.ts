// verifyWebhook: the signature over the raw body in constant time, the event's age or the signed
// time of the attempt (Standard Webhooks headers), and errors that say what to do. No network.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signTestWebhook, TillWebhookVerificationError, verifyWebhook, webhookSignatureHeader } from '../src/webhooks.js';
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

describe('verifyWebhook with the signature string', () => {
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

const HOUR = 3_600_000;
/** The Standard Webhooks signature, computed here independently of the SDK. */
const standard = (id: string, timestamp: number | string, b: string, key: Buffer) =>
  `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${b}`).digest('base64')}`;
const whsecKey = Buffer.from(secret.slice('whsec_'.length), 'base64');
/** What Till sends for one attempt at `attempt` (Node's req.headers: lower-case names). */
function delivery(attempt: Date | number, overrides: Record<string, string | string[] | undefined> = {}) {
  const ts = Math.floor(new Date(attempt).getTime() / 1000);
  return {
    'content-type': 'application/json',
    'x-webhook-signature': hmac(body, secret),
    'x-webhook-id': event.id,
    'x-webhook-event': event.type,
    'x-webhook-timestamp': String(ts),
    'webhook-id': event.id,
    'webhook-timestamp': String(ts),
    'webhook-signature': standard(event.id, ts, body, whsecKey),
    ...overrides,
  };
}

describe('verifyWebhook with the request headers', () => {
  it("returns the typed event from Node's req.headers, checking both signatures", () => {
    expect(verifyWebhook(body, delivery(now), secret, { now })).toEqual(event);
    expect(verifyWebhook(Buffer.from(body), delivery(now), secret, { now }).id).toBe(event.id);
  });

  it('a retry 2 hours after created verifies with the headers (the attempt is signed now) and is refused as event_stale with the signature string', () => {
    const attempt = now.getTime() + 2 * HOUR;
    const headers = delivery(attempt);
    expect(verifyWebhook(body, headers, secret, { now: attempt + 10_000 })).toEqual(event);
    const stale = refusal(() => verifyWebhook(body, headers['x-webhook-signature'], secret, { now: attempt + 10_000 }));
    expect(stale.code).toBe('event_stale');
    expect(stale.message).toMatch(/7210 s ago/);
    expect(stale.message).toMatch(/retry or a re-send/);
    expect(stale.message).toMatch(/pass req\.headers instead of the signature string/);
    expect(stale.message).toMatch(/raise toleranceSeconds/);
  });

  it('an event of an advanced sandbox clock (created 30 days ahead) verifies with the headers of an attempt made now', () => {
    const future = {
      ...event,
      created: new Date(now.getTime() + 30 * 24 * HOUR).toISOString(),
      createdAt: new Date(now.getTime() + 30 * 24 * HOUR).toISOString(),
    };
    const sent = signTestWebhook(future, secret, { now });
    expect(verifyWebhook(sent.body, sent.headers, secret, { now }).created).toBe(future.created);
    expect(refusal(() => verifyWebhook(sent.body, sent.headers['x-webhook-signature'], secret, { now })).message).toMatch(/in the future/);
  });

  it('refuses a replay of an old attempt (its signed webhook-timestamp is outside the tolerance), either way', () => {
    const replay = refusal(() => verifyWebhook(body, delivery(now), secret, { now: now.getTime() + 2 * HOUR }));
    expect(replay.code).toBe('timestamp_stale');
    expect(replay.message).toMatch(/7200 s ago \(webhook-timestamp\), outside the tolerance of 300 s/);
    expect(replay.message).toMatch(/replay/);
    expect(verifyWebhook(body, delivery(now), secret, { now: now.getTime() + 299_000 }).id).toBe(event.id);
    expect(refusal(() => verifyWebhook(body, delivery(now), secret, { now: now.getTime() + 301_000 })).code).toBe('timestamp_stale');
    expect(refusal(() => verifyWebhook(body, delivery(now), secret, { now: now.getTime() - 301_000 })).code).toBe('timestamp_stale');
    // The tolerance applies to the attempt's time, not to created.
    expect(verifyWebhook(body, delivery(now), secret, { now: now.getTime() + 2 * HOUR, toleranceSeconds: 3 * 3600 }).id).toBe(event.id);
  });

  it('refuses a tampered body, timestamp or id', () => {
    const fresh = now.getTime() + 2 * HOUR;
    // The body: the primary signature no longer matches.
    expect(refusal(() => verifyWebhook(body.replace('"merchantId":7', '"merchantId":8'), delivery(now), secret, { now })).code).toBe('signature_mismatch');
    // A replayed attempt with a fresh webhook-timestamp: the Standard signature no longer matches.
    const retimed = refusal(() => verifyWebhook(body, delivery(now, { 'webhook-timestamp': String(Math.floor(fresh / 1000)) }), secret, { now: fresh }));
    expect(retimed.code).toBe('standard_signature_mismatch');
    expect(retimed.message).toMatch(/does not match/);
    expect(refusal(() => verifyWebhook(body, delivery(now, { 'webhook-timestamp': `${Math.floor(now.getTime() / 1000)}.5` }), secret, { now })).code).toBe(
      'standard_signature_mismatch',
    );
    // webhook-id is signed too.
    expect(refusal(() => verifyWebhook(body, delivery(now, { 'webhook-id': 'evt_AAAAAAAAAAAA' }), secret, { now })).code).toBe('standard_signature_mismatch');
    // A validly signed webhook-id of another event, and an X-Webhook-Id that is not the body's id.
    const ts = Math.floor(now.getTime() / 1000);
    const otherId = delivery(now, { 'webhook-id': 'evt_AAAAAAAAAAAA', 'webhook-signature': standard('evt_AAAAAAAAAAAA', ts, body, whsecKey) });
    expect(refusal(() => verifyWebhook(body, otherId, secret, { now })).code).toBe('id_mismatch');
    const wrongPrimaryId = refusal(() => verifyWebhook(body, delivery(now, { 'x-webhook-id': 'evt_AAAAAAAAAAAA' }), secret, { now }));
    expect(wrongPrimaryId.code).toBe('id_mismatch');
    expect(wrongPrimaryId.message).toMatch(/X-Webhook-Id \(evt_AAAAAAAAAAAA\) is not the event's id \(evt_7Qm2Lx9Vb4Rt8Kc1\)/);
    // A signature under another key, or in another version.
    expect(
      refusal(() => verifyWebhook(body, delivery(now, { 'webhook-signature': standard(event.id, ts, body, Buffer.from(secret)) }), secret, { now })).code,
    ).toBe('standard_signature_mismatch');
    expect(
      refusal(() => verifyWebhook(body, delivery(now, { 'webhook-signature': delivery(now)['webhook-signature']!.replace('v1,', 'v2,') }), secret, { now }))
        .code,
    ).toBe('standard_signature_mismatch');
  });

  it('accepts any one of several space-separated signatures, and array header values', () => {
    const good = delivery(now)['webhook-signature']!;
    const bad = `v1,${Buffer.alloc(32, 7).toString('base64')}`;
    expect(verifyWebhook(body, delivery(now, { 'webhook-signature': `${bad} ${good}` }), secret, { now }).id).toBe(event.id);
    expect(refusal(() => verifyWebhook(body, delivery(now, { 'webhook-signature': `${bad} v1,short=` }), secret, { now })).code).toBe(
      'standard_signature_mismatch',
    );
    // Headers as arrays (Node's headersDistinct, frameworks that keep repeats).
    const arrays = Object.fromEntries(Object.entries(delivery(now)).map(([k, v]) => [k, [v as string]]));
    expect(verifyWebhook(body, arrays, secret, { now }).id).toBe(event.id);
    expect(verifyWebhook(body, { ...arrays, 'webhook-signature': [bad, good] }, secret, { now }).id).toBe(event.id);
    expect(refusal(() => verifyWebhook(body, { ...arrays, 'webhook-signature': [bad] }, secret, { now })).code).toBe('standard_signature_mismatch');
    // The signature string may still come as an array, as before.
    expect(verifyWebhook(body, [hmac(body, secret)], secret, { now }).id).toBe(event.id);
  });

  it('reads a Fetch Headers and a record whose names are in any case', () => {
    const fetchHeaders = new Headers(delivery(now) as Record<string, string>);
    expect(verifyWebhook(body, fetchHeaders, secret, { now }).id).toBe(event.id);
    expect(refusal(() => verifyWebhook(body, fetchHeaders, secret, { now: now.getTime() + 2 * HOUR })).code).toBe('timestamp_stale');
    const proper = Object.fromEntries(
      Object.entries(delivery(now)).map(([k, v]) => [k.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase()), v]),
    );
    expect(Object.keys(proper)).toContain('X-Webhook-Signature');
    expect(Object.keys(proper)).toContain('Webhook-Timestamp');
    expect(verifyWebhook(body, proper, secret, { now }).id).toBe(event.id);
    expect(refusal(() => verifyWebhook(body, proper, secret, { now: now.getTime() + 2 * HOUR })).code).toBe('timestamp_stale');
  });

  it('keys the Standard signature with the UTF-8 bytes of a secret that is not whsec_<base64>', () => {
    const own = 'my-own-secret-0123456789';
    const sent = signTestWebhook(event, own, { now });
    const ts = Math.floor(now.getTime() / 1000);
    expect(sent.headers['webhook-signature']).toBe(standard(event.id, ts, sent.body, Buffer.from(own, 'utf8')));
    expect(sent.headers['x-webhook-signature']).toBe(hmac(sent.body, own));
    expect(verifyWebhook(sent.body, sent.headers, own, { now })).toEqual(event);
    // A whsec_ secret keys it with the decoded bytes, not the text.
    expect(signTestWebhook(event, secret, { now }).headers['webhook-signature']).toBe(standard(event.id, ts, body, whsecKey));
    expect(
      refusal(() => verifyWebhook(body, delivery(now, { 'webhook-signature': standard(event.id, ts, body, Buffer.from(secret, 'utf8')) }), secret, { now }))
        .code,
    ).toBe('standard_signature_mismatch');
  });

  it('without the Standard headers, checks created as with the signature string; with only some of them, refuses', () => {
    const primaryOnly = {
      'x-webhook-signature': hmac(body, secret),
      'x-webhook-id': event.id,
      'x-webhook-timestamp': String(Math.floor(now.getTime() / 1000) + 7200),
    };
    expect(verifyWebhook(body, primaryOnly, secret, { now }).id).toBe(event.id);
    // Its X-Webhook-Timestamp is fresh 2 hours later, but it is not signed: the age is created's.
    const stale = refusal(() => verifyWebhook(body, primaryOnly, secret, { now: now.getTime() + 2 * HOUR }));
    expect(stale.code).toBe('event_stale');
    expect(stale.message).toMatch(/no Standard Webhooks headers/);
    const { 'webhook-signature': _dropped, ...partial } = delivery(now);
    const incomplete = refusal(() => verifyWebhook(body, partial, secret, { now }));
    expect(incomplete.code).toBe('standard_signature_mismatch');
    expect(incomplete.message).toMatch(/only some of the Standard Webhooks headers/);
  });

  it('requires X-Webhook-Signature even when the Standard headers are valid, and checks it first', () => {
    const { 'x-webhook-signature': _dropped, ...standardOnly } = delivery(now);
    expect(refusal(() => verifyWebhook(body, standardOnly, secret, { now })).code).toBe('signature_missing');
    expect(refusal(() => verifyWebhook(body, new Headers(), secret, { now })).code).toBe('signature_missing');
    const forged = refusal(() =>
      verifyWebhook(body, delivery(now, { 'x-webhook-signature': hmac(body, 'whsec_another_secret_entirely') }), secret, { now: now.getTime() + 2 * HOUR }),
    );
    expect(forged.code).toBe('signature_mismatch');
  });

  it('still asks for the raw body and the secret', () => {
    expect(refusal(() => verifyWebhook(event as unknown as string, delivery(now), secret, { now })).code).toBe('raw_body_required');
    expect(refusal(() => verifyWebhook(body, delivery(now), '', { now })).code).toBe('secret_missing');
    const notJson = 'not json';
    expect(refusal(() => verifyWebhook(notJson, { 'x-webhook-signature': hmac(notJson, secret) }, secret, { now })).code).toBe('invalid_payload');
  });
});

describe('building signatures for your own tests', () => {
  it('webhookSignatureHeader matches what Till sends, and signTestWebhook builds a delivery verifyWebhook accepts in both forms', () => {
    expect(webhookSignatureHeader(body, secret)).toBe(hmac(body, secret));
    const sent = signTestWebhook(event, secret, { now });
    expect(sent.headers).toEqual(delivery(now));
    expect(verifyWebhook(sent.body, sent.headers['x-webhook-signature'], secret, { now })).toEqual(event);
    expect(verifyWebhook(sent.body, sent.headers, secret, { now })).toEqual(event);
  });

  it('signTestWebhook with a later now builds a retry: same body, fresh timestamps, verified with the headers', () => {
    const retry = signTestWebhook(event, secret, { now: now.getTime() + 2 * HOUR });
    expect(retry.body).toBe(body);
    expect(retry.headers['webhook-timestamp']).toBe(String(now.getTime() / 1000 + 7200));
    expect(retry.headers['x-webhook-timestamp']).toBe(retry.headers['webhook-timestamp']);
    expect(verifyWebhook(retry.body, retry.headers, secret, { now: now.getTime() + 2 * HOUR }).id).toBe(event.id);
  });
});
