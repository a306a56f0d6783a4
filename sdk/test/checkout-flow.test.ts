// The SDK's checkout client runs the whole flow against the real server: create with the secret
// key, tokenize and confirm with the publishable key and client secret, refund part, then the rest.
import { expect, it } from 'vitest';
import { createCheckoutClient, TillConflictError } from '../src/index.js';
import { useTestServer } from '../../test/support/server.js';

const t = useTestServer();

it('creates, tokenizes, confirms, refunds part and then the rest, all through @till/sdk', async () => {
  const server = createCheckoutClient({ baseUrl: t.url, secretKey: t.merchantA.keys.test.secret });
  const created = await server.POST('/v1/checkout-sessions', {
    params: { header: { 'Idempotency-Key': `sdk-flow-${Date.now()}` } },
    body: { amount: 80, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', customerEmail: 'ana@example.com', metadata: { orderId: 'SDK-1' } },
  });
  expect(created.error).toBeUndefined();
  const session = created.data!;
  expect(session.status).toBe('open');

  const browser = createCheckoutClient({ baseUrl: t.url, publishableKey: t.merchantA.keys.test.publishable, clientSecret: session.clientSecret });
  const pm = await browser.POST('/v1/checkout-sessions/{id}/tokenize', {
    params: { path: { id: session.id } },
    body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' },
  });
  expect(pm.data?.card.last4).toBe('4242');
  const confirmed = await browser.POST('/v1/checkout-sessions/{id}/confirm', { params: { path: { id: session.id } }, body: { paymentMethodId: pm.data!.id } });
  expect(confirmed.data).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentResult: { status: 'succeeded', amount: 80 } });

  const part = await server.POST('/v1/checkout-sessions/{id}/refund', {
    params: { path: { id: session.id } },
    body: { amount: 30, reason: 'one item returned' },
  });
  expect(part.data).toMatchObject({ status: 'partially_refunded', refundAmount: 30, amountRefundable: 50 });
  const rest = await server.POST('/v1/payments/{paymentId}/refund', {
    params: { path: { paymentId: confirmed.data!.paymentResult.id } },
    body: { reason: 'order cancelled' },
  });
  expect(rest.data).toMatchObject({ status: 'refunded', refundAmount: 50, refundedAmount: 80, amountRefundable: 0 });

  // Repeating it once nothing is left answers alreadyRefunded (refund rule 5).
  const again = await server.POST('/v1/checkout-sessions/{id}/refund', { params: { path: { id: session.id } }, body: {} });
  expect(again.data).toMatchObject({ alreadyRefunded: true, refundAmount: 0 });

  // A failure comes back typed, from the envelope the refund operations document.
  const strict = createCheckoutClient({ baseUrl: t.url, secretKey: t.merchantA.keys.test.secret, throwOnError: true });
  const unpaid = await server.POST('/v1/checkout-sessions', { body: { amount: 5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' } });
  const err = await strict.POST('/v1/checkout-sessions/{id}/refund', { params: { path: { id: unpaid.data!.id } }, body: {} }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TillConflictError);
  expect((err as TillConflictError).code).toBe('nothing_to_refund');
  expect((err as TillConflictError).data?.reason).toBe('no_payment');
});
