// Names under `.invalid` (RFC 6761 §6.4) never resolve: the URL check and a delivery answer them as
// not found at once, as a resolver should, without a lookup.
import { describe, expect, it } from 'vitest';
import { sendWebhook } from '../../server/domain/webhooks/sender.js';
import { isInvalidName } from '../../server/shared/public-url.js';

describe('names under .invalid', () => {
  it.each([
    ['hooks.till.invalid', true],
    ['HOOKS.Till.INVALID', true],
    ['hooks.till.invalid.', true],
    ['invalid', true],
    ['invalid.example.com', false],
    ['notinvalid', false],
    ['hooks.example.com', false],
  ])('%s is under .invalid: %s', (host, expected) => {
    expect(isInvalidName(host)).toBe(expected);
  });

  it('a delivery to one fails as a name that does not resolve (dns_error), its signed request recorded', async () => {
    const outcome = await sendWebhook({
      url: 'https://conformance.till.invalid/hooks',
      secret: 'whsec_test',
      eventId: 'evt_1',
      eventType: 'webhook.test',
      body: '{"id":"evt_1"}',
      timestamp: 1_800_000_000,
      timeoutMs: 5_000,
      allowLoopback: false,
    });
    expect(outcome).toMatchObject({ ok: false, httpStatus: null, error: 'dns_error' });
    expect(outcome.requestHeaders?.['X-Webhook-Signature'] ?? outcome.requestHeaders?.['x-webhook-signature']).toMatch(/^sha256=/);
  });
});
