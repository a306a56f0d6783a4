// The signature headers of a delivery, recomputed here from their documented definitions (docs/webhooks.md),
// and checked by the SDK's verifier: what the server signs, a merchant can verify.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, signatureHeader, standardSignatureHeader, standardWebhooksKey } from '../../server/domain/webhooks/sender.js';
import { verifyWebhook } from '../../sdk/src/webhooks.js';

const GENERATED_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const event = {
  id: 'evt_3f1c',
  object: 'event',
  type: 'payment.succeeded',
  created: 1_795_000_000,
  livemode: false,
  data: { object: { id: 7, amount: 49.99, note: 'café ☕' } },
};
const body = JSON.stringify(event);

describe('X-Webhook-Signature', () => {
  it("is sha256= and the lower-case hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes", () => {
    const expected = createHmac('sha256', Buffer.from(GENERATED_SECRET, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signatureHeader(body, GENERATED_SECRET)).toBe(`sha256=${expected}`);
    expect(signatureHeader(body, GENERATED_SECRET)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('changes with one byte of the body or of the secret', () => {
    const signed = signatureHeader(body, GENERATED_SECRET);
    expect(signatureHeader(body.replace('49.99', '49.98'), GENERATED_SECRET)).not.toBe(signed);
    expect(signatureHeader(body, `${GENERATED_SECRET}x`)).not.toBe(signed);
  });
});

describe('Standard Webhooks signature', () => {
  it('keys a generated whsec_ secret with its base64-decoded bytes, and any other secret with its UTF-8 bytes', () => {
    expect(standardWebhooksKey(GENERATED_SECRET).toString()).toBe('0123456789abcdef0123456789abcdef');
    expect(standardWebhooksKey('my own secret').toString('utf8')).toBe('my own secret');
    // Not valid base64 after the prefix: the whole text is the key.
    expect(standardWebhooksKey('whsec_not*base64').toString('utf8')).toBe('whsec_not*base64');
  });

  it('is v1, and the base64 HMAC-SHA256 of id.timestamp.body', () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const expected = createHmac('sha256', key).update(`evt_3f1c.1795000123.${body}`).digest('base64');
    expect(standardSignatureHeader('evt_3f1c', 1_795_000_123, body, GENERATED_SECRET)).toBe(`v1,${expected}`);
  });
});

describe('the headers of an attempt', () => {
  const headers = deliveryHeaders({ secret: GENERATED_SECRET, eventId: event.id, eventType: event.type, body, timestamp: 1_795_000_060 });

  it("name the event and the attempt's time in both header sets", () => {
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-id': 'evt_3f1c',
      'x-webhook-event': 'payment.succeeded',
      'x-webhook-timestamp': '1795000060',
      'webhook-id': 'evt_3f1c',
      'webhook-timestamp': '1795000060',
    });
  });

  it("sign each attempt's own body, time and secret, however many attempts of the event come in the same second", () => {
    const attempt = (over: Partial<{ body: string; timestamp: number; secret: string }>) =>
      deliveryHeaders({ secret: GENERATED_SECRET, eventId: event.id, eventType: event.type, body, timestamp: 1_795_000_060, ...over });
    const signed = (h: Record<string, string>, b: string, timestamp: number, secret: string) =>
      h['x-webhook-signature'] === signatureHeader(b, secret) && h['webhook-signature'] === standardSignatureHeader(event.id, timestamp, b, secret);
    const other = `whsec_${Buffer.from('another key, 32 bytes long......').toString('base64')}`;
    const rendered = body.replace('49.99', '50.00');
    expect(attempt({})).toEqual(headers);
    expect(signed(attempt({ body: rendered }), rendered, 1_795_000_060, GENERATED_SECRET)).toBe(true);
    expect(signed(attempt({}), body, 1_795_000_060, GENERATED_SECRET)).toBe(true);
    expect(signed(attempt({ timestamp: 1_795_000_061 }), body, 1_795_000_061, GENERATED_SECRET)).toBe(true);
    expect(signed(attempt({ secret: other }), body, 1_795_000_060, other)).toBe(true);
    expect(attempt({ body: rendered })['webhook-signature']).not.toBe(headers['webhook-signature']);
  });

  it('verify with the SDK, and a tampered body, another secret or a stale attempt does not', () => {
    const now = 1_795_000_060 * 1000;
    expect(verifyWebhook(body, headers, GENERATED_SECRET, { now })).toEqual(event);
    const code = (run: () => unknown) => {
      try {
        run();
        return 'verified';
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    expect(code(() => verifyWebhook(body.replace('49.99', '4999'), headers, GENERATED_SECRET, { now }))).toBe('signature_mismatch');
    expect(code(() => verifyWebhook(body, headers, `whsec_${Buffer.from('another key, 32 bytes long......').toString('base64')}`, { now }))).toBe(
      'signature_mismatch',
    );
    expect(code(() => verifyWebhook(body, headers, GENERATED_SECRET, { now: now + 3600_000 }))).not.toBe('verified');
  });
});
