// The cancel rows of the checkout session state table (checkout-billing-api.md › Checkout session
// status): a session not completed is cancelled, with what follows; a completed one is not; a
// payment already in 3-D Secure may still complete. The other rows are in session-states.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { otherSecretKey, publishableKey, secretKey } from '../fixtures/keys.js';
import { retrieveInvoice } from '../fixtures/invoices.js';
import { CANCEL, ISSUE_QR, PAY_CARD, RETRIEVE, SESSION, STATUS, WITHDRAW } from '../fixtures/operations.js';
import { pendingBecause, scenario } from '../fixtures/scenario.js';
import { SESSION_STATES } from '../fixtures/sections.js';
import { cancelSession, confirmWith, getSessionStatus, newSession, payByCard, retrieveSession, tokenizeOn } from '../fixtures/sessions.js';
import { newQrSession, payQr, postWithdraw } from '../fixtures/wallet.js';

/** The sandbox card that asks for 3-D Secure. */
const THREE_DS_CARD = { cardNumber: '4000000000003220', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

export const sessionCancelStates: Scenario[] = [
  {
    id: 'checkout.session-states.cancel-not-completed',
    title: 'A session not completed → cancel with the server key → 204, status `cancelled`',
    source: SESSION_STATES,
    requires: [SESSION, CANCEL, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const res = await cancelSession(ctx, s.id);
      expectStatus(res, 204, 'cancel with the server key');
      assert.equal(res.text, '', '204 has no body');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled');
      // Cancelling again changes nothing.
      expectStatus(await cancelSession(ctx, s.id), 204, 'a repeated cancel');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled');
      // Another merchant cannot cancel it.
      const mine = await newSession(ctx);
      expectError(await cancelSession(ctx, mine.id, { key: await otherSecretKey(ctx) }), 404, 'not_found');
      assert.equal((await retrieveSession(ctx, mine.id)).status, 'created', "another merchant's cancel changes nothing");
    },
  },
  scenario(
    'checkout.session-states.cancel-confirm-refused',
    'After cancel, confirm is refused (400)',
    SESSION_STATES,
    [...PAY_CARD, CANCEL, RETRIEVE],
    async (ctx) => {
      const s = await newSession(ctx);
      const pm = await tokenizeOn(ctx, s);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel');
      expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
      const after = await retrieveSession(ctx, s.id);
      assert.equal(after.status, 'cancelled', 'the refused confirm changed nothing');
      assert.equal(after.refund.reason, 'no_payment', 'no payment was made');
    },
  ),
  {
    id: 'checkout.session-states.cancel-withdraws-qr',
    title: 'Cancel withdraws a live wallet QR code (it can no longer be paid)',
    source: SESSION_STATES,
    requires: [...ISSUE_QR, CANCEL, 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel');
      expectError(await payQr(ctx, s), 409, 'conflict', 'invalid_state');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled');
    },
  },
  scenario(
    'checkout.session-states.cancel-cancels-session-invoice',
    'Cancel cancels the invoice the session created',
    SESSION_STATES,
    [...ISSUE_QR, CANCEL, RETRIEVE, 'retrieveInvoice', 'listInvoices'],
    async (ctx) => {
      const newestOpen = async (): Promise<number | null> => {
        const res = await call(ctx, 'checkout', 'listInvoices', {
          method: 'GET',
          path: '/v1/invoices',
          key: secretKey(ctx),
          query: { status: 'pending', limit: 1 },
        });
        expectStatus(res, 200, 'list the open invoices');
        return res.json.data[0]?.id ?? null;
      };
      const before = await newestOpen();
      // A session waiting for its wallet QR code is not completed; whatever invoice it raised must go with it.
      const { s } = await newQrSession(ctx);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel');
      const { invoiceId } = await retrieveSession(ctx, s.id);
      if (invoiceId !== null) assert.equal((await retrieveInvoice(ctx, invoiceId)).status, 'cancelled', 'the invoice the session created is cancelled');
      assert.equal(await newestOpen(), before, 'the cancelled session leaves no open invoice behind');
    },
    { ownMerchant: true },
  ),
  scenario(
    'checkout.session-states.completed-cancel-refused',
    '`completed` → cancel is refused (409; refund instead) and the session is unchanged',
    SESSION_STATES,
    [...PAY_CARD, CANCEL, RETRIEVE],
    async (ctx) => {
      const s = await newSession(ctx);
      await payByCard(ctx, s);
      const before = await retrieveSession(ctx, s.id);
      expectError(await cancelSession(ctx, s.id), 409, 'conflict');
      const after = await retrieveSession(ctx, s.id);
      assert.equal(after.status, 'completed', 'the session stays completed');
      assert.deepEqual(after, before, 'and is unchanged');
      assert.equal(after.refund.refundable, true, 'its payment can be refunded instead');
    },
  ),
  {
    id: 'checkout.session-states.3ds-cancel-may-complete',
    title: 'A payment already in 3-D Secure when the session is cancelled may still complete (refund it if it does)',
    source: SESSION_STATES,
    requires: [...PAY_CARD, CANCEL, STATUS, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const s = await newSession(ctx);
      const auth = { key: pk, clientSecret: s.clientSecret };
      const pm = await call(ctx, 'checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/tokenize`, ...auth, body: THREE_DS_CARD });
      expectStatus(pm, 201, 'tokenize the 3-D Secure test card');
      const returnUrl = 'https://shop.example.com/conformance/3ds-return';
      const confirmed = await call(ctx, 'checkout', 'confirmCheckoutSession', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/confirm`,
        ...auth,
        body: { paymentMethodId: pm.json.id, returnUrl },
      });
      expectStatus(confirmed, 200, 'confirm with the 3-D Secure test card');
      assert.equal(confirmed.json.status, 'payment_pending', 'the confirm answer waits for the payer');
      assert.equal(confirmed.json.paymentStatus, 'unpaid');
      assert.equal(confirmed.json.paymentResult?.status, 'requires_action');
      assert.equal(confirmed.json.nextAction?.type, 'redirect_to_3ds', 'nextAction sends the payer to 3-D Secure');
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel during 3-D Secure');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled', 'the session reads cancelled');
      // Play the payer on the issuer's page: only Till's sandbox page can be driven from here.
      const page = await fetch(confirmed.json.nextAction.url, { redirect: 'manual' });
      const html = await page.text();
      const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
      if (page.status !== 200 || !token || !html.includes('Complete authentication'))
        pendingBecause("nextAction.url is not Till's sandbox 3-D Secure page; complete it by hand");
      const done = await fetch(confirmed.json.nextAction.url, { method: 'POST', body: new URLSearchParams({ answer: 'complete', token }), redirect: 'manual' });
      assert.equal(done.status, 303, 'completing the challenge redirects the payer');
      assert.equal(done.headers.get('location'), returnUrl, 'to the returnUrl');
      const polled = await getSessionStatus(ctx, s.id);
      expectStatus(polled, 200, 'poll');
      assert.equal(polled.json.status, 'completed', 'the payment in 3-D Secure still completed the cancelled session');
      const refund = await call(ctx, 'checkout', 'refundCheckoutSession', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/refund`,
        key: secretKey(ctx),
        body: { reason: 'cancelled during 3-D Secure' },
      });
      expectStatus(refund, 200, 'refund it');
      assert.equal(refund.json.status, 'refunded', 'the payment is refunded in full');
    },
  },
  {
    id: 'checkout.session-states.cancelled-refuses-confirm-and-withdraw',
    title: 'A cancelled session refuses confirm, and withdraw-qr on it answers 400',
    source: SESSION_STATES,
    requires: [...PAY_CARD, CANCEL, WITHDRAW],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const pm = await tokenizeOn(ctx, s);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel');
      expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
      expectError(await postWithdraw(ctx, s), 400, 'invalid_request', 'session_not_payable');
    },
  },
];
