import { testMessageObject } from '../../domain/messages/message.mapper.js';
import { listMessages } from '../../domain/messages/message.service.js';
import { settlePayment } from '../../domain/payments/refund.service.js';
import { payQr } from '../../domain/payments/wallet.service.js';
import { advanceSandboxClock } from '../../domain/sandbox/clock.service.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

/** Test-mode helpers (live keys are refused before these run). */
export const testHelperHandlers: CheckoutHandlers = {
  async advanceTestClock({ db, deps, auth, body }) {
    return { status: 200, body: await advanceSandboxClock(db, deps.clock, deps.config, merchantOf(auth), body.seconds) };
  },
  async settleTestPayment({ db, deps, auth, path }) {
    return { status: 200, body: await settlePayment(db, deps.clock, { merchantId: merchantOf(auth), livemode: auth.livemode }, path.paymentId) };
  },
  async simulateQrPaid({ db, deps, auth, path }) {
    return { status: 200, body: await payQr(db, deps.clock, { merchantId: merchantOf(auth), livemode: auth.livemode }, path.id) };
  },
  async listTestMessages({ db, auth, query }) {
    const page = await listMessages(db, { merchantId: merchantOf(auth), livemode: auth.livemode }, { limit: query.limit ?? 25, startingAfter: query.startingAfter, to: query.to, kind: query.kind });
    return { status: 200, body: { object: 'list', data: page.data.map(testMessageObject), hasMore: page.hasMore } };
  },
};
