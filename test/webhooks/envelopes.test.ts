// The envelope of every event type: each type of EVENT_TYPES produced through the real API (and the
// sandbox and payout clocks), delivered to a receiver that verifies it with the SDK, valid against
// the contract, with the envelope fields as documented.
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { TillWebhookVerificationError, verifyWebhook } from '../../sdk/src/webhooks.js';
import { runDueSubscriptions } from '../../server/domain/billing/renewal.js';
import { lapseDueHolds, settleDuePayments } from '../../server/domain/checkout/payment-operations.js';
import { markOverdueInvoices } from '../../server/domain/invoices/invoice-billing.js';
import { expireDueInvoices } from '../../server/domain/invoices/invoice-expiry.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { completeDueArrivals, makeDuePayouts } from '../../server/domain/payouts/payouts.service.js';
import { completeDueTransfers } from '../../server/domain/transfers/transfer-processing.js';
import { EVENT_TYPES } from '../../server/domain/webhooks/event-types.js';
import { expectEventMatchesContract as checkEnvelope } from '../support/event-contract.js';
import { createTestSession } from '../support/server.js';
import type { Receiver } from '../support/webhook-receiver.js';
import { card, useWebhookServer } from '../support/webhooks.js';

const { t, clock, receiver, deliver, configure, paidSession } = useWebhookServer();
// The contract's `webhooks` section: each delivered body must match its type.
const contract = JSON.parse(readFileSync(new URL('../../generated/checkout.openapi.json', import.meta.url), 'utf8'));

describe('the envelope of every event type', () => {
  // Each type of EVENT_TYPES is either produced below through the real API and delivered to a
  // receiver, or listed as not produced yet: a new type cannot be forgotten.
  const PRODUCED = [
    'payment.succeeded',
    'payment.failed',
    'payment.refunded',
    'payment.authorized',
    'payment.captured',
    'payment.released',
    'payment.authorization_expired',
    'checkout.session.completed',
    'checkout.session.expired',
    'checkout.session.cancelled',
    'invoice.paid',
    'invoice.payment_failed',
    'invoice.sent',
    'invoice.voided',
    'invoice.refunded',
    'invoice.past_due',
    'invoice.expired',
    'subscription.created',
    'subscription.activated',
    'subscription.renewed',
    'subscription.payment_failed',
    'subscription.past_due',
    'subscription.unpaid',
    'subscription.paused',
    'subscription.resumed',
    'subscription.cancelled',
    'subscription.updated',
    'dispute.opened',
    'dispute.updated',
    'dispute.closed',
    'payout.completed',
    'payout.failed',
    'transfer.processing',
    'transfer.completed',
    'transfer.failed',
    'webhook.test',
  ] as const;
  const NOT_PRODUCED_YET: Record<string, string> = {};
  const SUBJECT: Record<string, string> = {
    payment: 'payment',
    checkout: 'checkout_session',
    invoice: 'invoice',
    subscription: 'subscription',
    payout: 'payout',
    dispute: 'dispute',
    transfer: 'transfer',
    webhook: 'test',
  };
  const subjectOf = (type: string) => SUBJECT[type.split('.')[0]!];

  let m: MerchantCredentials;
  let secret: string;
  let r: Receiver;
  /** The SDK's verdict on each received request, by its index, taken when it arrived. */
  const verdicts: string[] = [];
  const byType = (type: string) => r.received.filter((h) => h.json?.type === type);

  it('every type is produced below or listed as not produced yet, and both lists agree with the contract and the server code', () => {
    const todo = Object.keys(NOT_PRODUCED_YET);
    expect(PRODUCED.filter((type) => todo.includes(type))).toEqual([]);
    expect([...PRODUCED, ...todo].sort()).toEqual([...EVENT_TYPES].sort());
    expect([...EVENT_TYPES].sort()).toEqual([...contract.components.schemas.EventType.enum].sort());
    expect(Object.keys(contract.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    // A type the server names in its code is produced: move it from NOT_PRODUCED_YET to PRODUCED.
    const serverFiles = (readdirSync(new URL('../../server', import.meta.url), { recursive: true }) as string[]).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('event-types.ts'),
    );
    const serverCode = serverFiles.map((f) => readFileSync(new URL(`../../server/${f}`, import.meta.url), 'utf8')).join('\n');
    expect(todo.filter((type) => serverCode.includes(`'${type}'`))).toEqual([]);
    expect(PRODUCED.filter((type) => !serverCode.includes(`'${type}'`))).toEqual([]);
  });

  describe('produced by the server', () => {
    beforeAll(async () => {
      m = await t.newMerchant();
      r = await receiver((n, hook) => {
        try {
          verdicts[n] = `ok ${verifyWebhook(hook.raw, hook.headers, secret, { now: clock.now() }).id}`;
          return 200;
        } catch (err) {
          verdicts[n] = err instanceof TillWebhookVerificationError ? err.code : String(err);
          return 400;
        }
      });
      const c = await configure(m, { sandboxUrl: r.url });
      secret = c.json.sandboxSecret;
      const sk = m.keys.test.secret;
      const pk = m.keys.test.publishable;
      const ok = (res: { status: number; text: string }, status = 200) => expect(res.status, res.text).toBe(status);

      await paidSession(m); // payment.succeeded, checkout.session.completed, invoice.paid
      const declined = await createTestSession(t, m);
      const badCard = await t.call('POST', `/v1/checkout-sessions/${declined.id}/tokenize`, {
        key: pk,
        clientSecret: declined.clientSecret,
        body: { ...card, cardNumber: '4000000000009995' },
      });
      const refused = await t.call('POST', `/v1/checkout-sessions/${declined.id}/confirm`, {
        key: pk,
        clientSecret: declined.clientSecret,
        body: { paymentMethodId: badCard.json.id },
      });
      expect(refused.json.error.code).toBe('card_declined'); // payment.failed
      const captured = await paidSession(m, { captureMethod: 'manual' }); // payment.authorized
      ok(await t.call('POST', `/v1/payments/${captured.paymentId}/capture`, { key: sk, body: {} })); // payment.captured
      const released = await paidSession(m, { captureMethod: 'manual' });
      ok(await t.call('POST', `/v1/payments/${released.paymentId}/release`, { key: sk })); // payment.released
      const refunded = await paidSession(m);
      ok(await t.call('POST', `/v1/checkout-sessions/${refunded.session.id}/refund`, { key: sk, body: {} })); // payment.refunded, invoice.refunded
      const cancelled = await createTestSession(t, m);
      ok(await t.call('POST', `/v1/checkout-sessions/${cancelled.id}/cancel`, { key: sk }), 204); // checkout.session.cancelled
      const invoice = {
        customer: { email: 'ana@example.com', firstName: 'Ana' },
        currency: 'USD',
        lineItems: [{ name: 'Consulting', quantity: 1, unitAmount: 120 }],
      };
      ok(await t.call('POST', '/v1/invoices', { key: sk, body: { ...invoice, send: true } }), 201); // invoice.sent
      const toVoid = await t.call('POST', '/v1/invoices', { key: sk, body: invoice });
      ok(await t.call('POST', `/v1/invoices/${toVoid.json.id}/void`, { key: sk })); // invoice.voided
      const owed = await t.call('POST', '/v1/invoices', { key: sk, body: invoice });
      const paying = await t.call('POST', '/v1/checkout-sessions', { key: sk, body: { mode: 'embedded', paymentType: 'oneTime', invoiceId: owed.json.id } });
      const owedCard = await t.call('POST', `/v1/checkout-sessions/${paying.json.id}/tokenize`, {
        key: pk,
        clientSecret: paying.json.clientSecret,
        body: { ...card, cardNumber: '4000000000009995' },
      });
      const owedDeclined = await t.call('POST', `/v1/checkout-sessions/${paying.json.id}/confirm`, {
        key: pk,
        clientSecret: paying.json.clientSecret,
        body: { paymentMethodId: owedCard.json.id },
      });
      expect(owedDeclined.json.error.code).toBe('card_declined'); // payment.failed, invoice.payment_failed
      const product = await t.call('POST', '/v1/products', { key: sk, body: { name: 'Pro' } });
      const plan = await t.call('POST', '/v1/plans', {
        key: sk,
        body: { productId: product.json.id, name: 'Pro monthly', amount: 29, currency: 'USD', interval: 'month' },
      });
      const customer = await t.call('POST', '/v1/customers', { key: sk, body: { email: `subscriber-${m.merchantId}@example.com` } });
      const subscription = await t.call('POST', '/v1/checkout-sessions', {
        key: sk,
        body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: plan.json.data.id, clientId: customer.json.data.id },
      });
      ok(subscription, 201);
      const subscriptionCard = await t.call('POST', `/v1/checkout-sessions/${subscription.json.id}/tokenize`, {
        key: pk,
        clientSecret: subscription.json.clientSecret,
        body: card,
      });
      ok(
        await t.call('POST', `/v1/checkout-sessions/${subscription.json.id}/confirm`, {
          key: pk,
          clientSecret: subscription.json.clientSecret,
          body: { paymentMethodId: subscriptionCard.json.id },
        }),
      ); // subscription.created, subscription.activated
      // Billing: pause, resume, a plan change and a scheduled cancellation on that subscription; a
      // second one renews, a third (a card that declines later) goes through dunning to unpaid.
      const subscribe = async (cardNumber: string) => {
        const started = await t.call('POST', '/v1/checkout-sessions', {
          key: sk,
          body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: plan.json.data.id, clientId: customer.json.data.id },
        });
        const tokenized = await t.call('POST', `/v1/checkout-sessions/${started.json.id}/tokenize`, {
          key: pk,
          clientSecret: started.json.clientSecret,
          body: { ...card, cardNumber },
        });
        ok(
          await t.call('POST', `/v1/checkout-sessions/${started.json.id}/confirm`, {
            key: pk,
            clientSecret: started.json.clientSecret,
            body: { paymentMethodId: tokenized.json.id },
          }),
        );
        return (await t.call('GET', `/v1/checkout-sessions/${started.json.id}`, { key: sk })).json.subscriptionId as number;
      };
      const subscriptionId = (await t.call('GET', `/v1/checkout-sessions/${subscription.json.id}`, { key: sk })).json.subscriptionId;
      ok(await t.call('POST', `/v1/subscriptions/${subscriptionId}/pause`, { key: sk, body: { reason: 'vacation' } })); // subscription.paused
      ok(await t.call('POST', `/v1/subscriptions/${subscriptionId}/resume`, { key: sk })); // subscription.resumed
      const team = await t.call('POST', '/v1/plans', {
        key: sk,
        body: { productId: product.json.id, name: 'Team monthly', amount: 49, currency: 'USD', interval: 'month' },
      });
      ok(await t.call('POST', `/v1/subscriptions/${subscriptionId}/change-plan`, { key: sk, body: { planId: team.json.data.id } })); // subscription.updated
      ok(await t.call('POST', `/v1/subscriptions/${subscriptionId}/cancel`, { key: sk, body: {} })); // subscription.cancelled
      const expiresTomorrow = {
        currencyCode: 'USD',
        items: [{ name: 'Quote', unitCost: 80, quantity: 1 }],
        validTo: new Date(clock.now().getTime() + 86_400_000).toISOString(),
      };
      ok(await t.call('POST', '/v1/invoice', { apiKey: sk, body: expiresTomorrow }), 201); // invoice.expired, when billing passes its validTo
      await subscribe('4242424242424242');
      await subscribe('4000000000000341');
      const onlyThisMerchant = { kind: 'sandbox' as const, merchantId: m.merchantId, offsetSeconds: 0 };
      const billing = async (days: number) => {
        clock.advance(days * 86_400);
        await runDueSubscriptions(t.database.db, clock, onlyThisMerchant);
        await markOverdueInvoices(t.database.db, clock, onlyThisMerchant);
        await expireDueInvoices(t.database.db, clock, onlyThisMerchant);
      };
      await billing(32); // subscription.renewed, subscription.payment_failed, subscription.past_due, invoice.past_due, invoice.expired, subscription.cancelled
      for (let day = 0; day < 4; day++) await billing(2); // the dunning retries, then subscription.unpaid
      const disputed = await paidSession(m);
      const dispute = await t.call('POST', `/v1/test-helpers/payments/${disputed.paymentId}/dispute`, { key: sk, body: {} });
      ok(dispute, 201); // dispute.opened
      ok(await t.call('POST', `/v1/test-helpers/disputes/${dispute.json.id}/update`, { key: sk, body: { status: 'UnderReview' } })); // dispute.updated
      ok(await t.call('POST', `/v1/test-helpers/disputes/${dispute.json.id}/close`, { key: sk, body: { outcome: 'Lost' } })); // dispute.closed
      ok(await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: sk, body: { eventType: 'payment.succeeded' } })); // webhook.test
      await deliver();
      // Time passes: a session past its expiry is read (checkout.session.expired), a hold lapses (payment.authorization_expired).
      const expiring = await createTestSession(t, m, false, { expiresAt: new Date(clock.now().getTime() + 11 * 60_000).toISOString() });
      await paidSession(m, { captureMethod: 'manual' });
      clock.advance(8 * 86_400);
      expect((await t.call('GET', `/v1/checkout-sessions/${expiring.id}`, { key: sk })).json.status).toBe('expired');
      expect(await lapseDueHolds(t.database.db, clock)).toBeGreaterThanOrEqual(1);
      // Day by day: settled money leaves at 00:00 UTC and arrives a day later (payout.completed);
      // with a failure armed, the next payout fails when it would arrive (payout.failed).
      const payoutDays = async (days: number) => {
        for (let day = 0; day < days; day++) {
          clock.advance(86_400);
          await settleDuePayments(t.database.db, clock, onlyThisMerchant);
          await completeDueArrivals(t.database.db, clock, onlyThisMerchant);
          await makeDuePayouts(t.database.db, clock, onlyThisMerchant);
        }
      };
      await payoutDays(3); // payout.completed
      await paidSession(m);
      ok(await t.call('POST', '/v1/test-helpers/payouts/fail-next', { key: sk, body: {} }));
      await payoutDays(5); // payout.failed
      // Two bank transfers of settled money (transfer.processing): one fails by the test helper
      // (transfer.failed), the other completes the next business day (transfer.completed).
      const funds = await paidSession(m);
      ok(await t.call('POST', `/v1/test-helpers/payments/${funds.paymentId}/settle`, { key: sk }));
      const account = (await t.call('GET', '/v1/account', { apiKey: sk })).json.value.find((a: any) => a.currencyCode === 'USD');
      const send = () =>
        t.call('POST', '/v1/transfer', {
          apiKey: sk,
          body: {
            sourceAccountId: account.id,
            destinationAccountNumber: 'DE89370400440532013000',
            amount: 1,
            currencyCode: 'USD',
            transferAction: 'BankTransfer',
          },
        });
      const [failing, completing] = [await send(), await send()];
      ok(failing, 201);
      ok(completing, 201);
      ok(await t.call('POST', `/v1/test-helpers/transfers/${failing.json.id}/fail`, { key: sk, body: {} }));
      clock.advance(4 * 86_400);
      expect(await completeDueTransfers(t.database.db, clock, onlyThisMerchant)).toBe(1);
      await deliver();
    });

    it.each(PRODUCED)('%s: delivered, verified with req.headers, valid against the contract, and the envelope as documented', async (type) => {
      const hooks = byType(type);
      expect(hooks.length, `${type} delivered`).toBeGreaterThanOrEqual(1);
      for (const hook of hooks) {
        const body = hook.json;
        checkEnvelope(body);
        expect(verdicts[r.received.indexOf(hook)], `${type} verified by the receiver`).toBe(`ok ${body.id}`);
        expect(body).toMatchObject({ object: 'event', type, livemode: false, merchantId: m.merchantId });
        expect(body.id).toMatch(/^evt_[A-Za-z0-9]{8,64}$/);
        expect(body.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        // `created` and `createdAt` are the same timestamp: when the event was written, before it was sent.
        expect(body.created).toBe(body.createdAt);
        const row = await t.database.db.selectFrom('events').select(['created_at', 'type']).where('id', '=', body.id).executeTakeFirstOrThrow();
        expect(row.type).toBe(type);
        expect(body.created).toBe(row.created_at.toISOString());
        expect(Date.parse(body.created)).toBeLessThanOrEqual(Number(hook.headers['webhook-timestamp']) * 1000 + 999);
        expect(hook.headers).toMatchObject({ 'x-webhook-event': type, 'x-webhook-id': body.id, 'webhook-id': body.id });
        expect(body.data.object.object).toBe(subjectOf(type));
        for (const key of ['status', 'paymentStatus', 'previousStatus']) {
          if (typeof body.data.object[key] === 'string') expect(body.data.object[key], `${type} data.object.${key}`).toMatch(/^[A-Z][A-Za-z]*$/);
        }
      }
    });
  });

  // Every type is produced today; a new type may wait here, with its reason, until it is.
  if (Object.keys(NOT_PRODUCED_YET).length > 0)
    describe('not produced yet', () => {
      for (const [type, why] of Object.entries(NOT_PRODUCED_YET)) it.todo(`${type}: not produced yet (${why})`);

      it.each(Object.keys(NOT_PRODUCED_YET))("%s: the contract's own examples validate against its schema and the envelope rules", (type) => {
        const examples = Object.values(contract.webhooks[type].post.requestBody.content['application/json'].examples ?? {}) as {
          $ref?: string;
          value?: unknown;
        }[];
        expect(examples.length, `${type} has an example`).toBeGreaterThanOrEqual(1);
        for (const example of examples) {
          const value: any = example.$ref ? contract.components.examples[example.$ref.split('/').at(-1)!].value : example.value;
          checkEnvelope(value);
          expect(value.type).toBe(type);
          expect(value.created).toBe(value.createdAt);
          expect(value.data.object.object).toBe(subjectOf(type));
        }
      });
    });
});
