import { refund } from '../../domain/payments/refund.service.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

export const refundHandlers: CheckoutHandlers = {
  async refundCheckoutSession({ db, deps, auth, path, body }) {
    return { status: 200, body: await refund(db, deps.clock, { merchantId: merchantOf(auth), livemode: auth.livemode }, { sessionId: path.id }, body ?? {}) };
  },
  async refundPayment({ db, deps, auth, path, body }) {
    return { status: 200, body: await refund(db, deps.clock, { merchantId: merchantOf(auth), livemode: auth.livemode }, { paymentId: path.paymentId }, body ?? {}) };
  },
};
