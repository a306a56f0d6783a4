import { captureHold, releaseHold } from '../../domain/payments/hold.service.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

export const holdHandlers: CheckoutHandlers = {
  async capturePayment({ db, deps, auth, path, body }) {
    return { status: 200, body: await captureHold(db, deps.clock, { merchantId: merchantOf(auth), livemode: auth.livemode }, path.paymentId, body ?? {}) };
  },
  async releasePayment({ db, deps, auth, path }) {
    return { status: 200, body: await releaseHold(db, deps.clock, { merchantId: merchantOf(auth), livemode: auth.livemode }, path.paymentId) };
  },
};
