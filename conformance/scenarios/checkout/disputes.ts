// Disputes (Till's design, behind the `dispute.*` event types): a test helper opens a chargeback on a
// card payment, moves it and closes it; refused transitions answer 409 `invalid_state` or 400
// `parameter_invalid` in the general error shape.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { PAY_CARD } from '../fixtures/operations.js';
import { CHECKOUT_DOC, source } from '../fixtures/scenario.js';
import { newSession, payByCard } from '../fixtures/sessions.js';

const EVENT_TYPES = source(CHECKOUT_DOC, 'Events', 'Event types');
const OPEN = [...PAY_CARD, 'openTestDispute'];

/** A paid card payment's id. */
async function paidPayment(ctx: ConformanceContext, amount = 50): Promise<number> {
  const confirmed = await payByCard(ctx, await newSession(ctx, { amount }));
  return confirmed.paymentResult.id as number;
}
const open = (ctx: ConformanceContext, paymentId: number, body: Record<string, unknown> = {}) =>
  call(ctx, 'checkout', 'openTestDispute', { method: 'POST', path: `/v1/test-helpers/payments/${paymentId}/dispute`, key: secretKey(ctx), body });
const closeDispute = (ctx: ConformanceContext, id: string, outcome: string) =>
  call(ctx, 'checkout', 'closeTestDispute', { method: 'POST', path: `/v1/test-helpers/disputes/${id}/close`, key: secretKey(ctx), body: { outcome } });

export const disputes: Scenario[] = [
  {
    id: 'checkout.disputes.open-update-close',
    title: 'A dispute opens `Open` on a card payment, moves to `UnderReview` with previousStatus, closes `Lost` with the 15.00 fee, and reads back as closed',
    source: EVENT_TYPES,
    requires: [...OPEN, 'updateTestDispute', 'closeTestDispute', 'retrieveDispute'],
    serverOnly: true,
    async run(ctx) {
      const opened = await open(ctx, await paidPayment(ctx, 50), { amount: 20, reason: 'fraudulent' });
      expectStatus(opened, 201, 'open a dispute');
      assert.equal(opened.json.status, 'Open');
      assert.equal(opened.json.amount, 20);
      const moved = await call(ctx, 'checkout', 'updateTestDispute', {
        method: 'POST',
        path: `/v1/test-helpers/disputes/${opened.json.id}/update`,
        key: secretKey(ctx),
        body: { status: 'UnderReview' },
      });
      expectStatus(moved, 200, 'move the dispute');
      assert.equal(moved.json.previousStatus, 'Open');
      const lost = await closeDispute(ctx, opened.json.id, 'Lost');
      expectStatus(lost, 200, 'close the dispute');
      assert.equal(lost.json.status, 'Lost');
      assert.equal(lost.json.fee, 15);
      assert.equal(lost.json.evidenceDueBy, null);
      const read = await call(ctx, 'checkout', 'retrieveDispute', { method: 'GET', path: `/v1/disputes/${opened.json.id}`, key: secretKey(ctx) });
      expectStatus(read, 200, 'retrieve the dispute');
      assert.deepEqual(read.json, lost.json);
    },
  },
  {
    id: 'checkout.disputes.close-once',
    title: 'Closing a closed dispute answers 409 `invalid_state`',
    source: EVENT_TYPES,
    requires: [...OPEN, 'closeTestDispute'],
    serverOnly: true,
    async run(ctx) {
      const opened = await open(ctx, await paidPayment(ctx, 30));
      expectStatus(await closeDispute(ctx, opened.json.id, 'Won'), 200, 'close the dispute');
      expectError(await closeDispute(ctx, opened.json.id, 'Lost'), 409, 'conflict', 'invalid_state');
    },
  },
  {
    id: 'checkout.disputes.once-per-payment',
    title: 'A second dispute on the same payment answers 409 `invalid_state`',
    source: EVENT_TYPES,
    requires: OPEN,
    serverOnly: true,
    async run(ctx) {
      const paymentId = await paidPayment(ctx, 30);
      expectStatus(await open(ctx, paymentId), 201, 'open a dispute');
      expectError(await open(ctx, paymentId), 409, 'conflict', 'invalid_state');
    },
  },
  {
    id: 'checkout.disputes.amount-over-disputable',
    title: 'A disputed amount over what was captured and not refunded answers 400 `parameter_invalid` naming `amount`',
    source: EVENT_TYPES,
    requires: OPEN,
    serverOnly: true,
    async run(ctx) {
      expectError(await open(ctx, await paidPayment(ctx, 30), { amount: 30.01 }), 400, 'invalid_request', 'parameter_invalid', 'amount');
    },
  },
];
