import { refund } from '../../domain/checkout/payment-operations.js';
import { ok } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { refundResultView } from './views/payment.view.js';

export const refundHandlers: CheckoutHandlers = {
  async refundCheckoutSession({ db, deps, tenant, path, body }) {
    return ok(refundResultView(await refund(db, deps.clock, tenant, { sessionId: path.id }, body ?? {})));
  },
  async refundPayment({ db, deps, tenant, path, body }) {
    return ok(refundResultView(await refund(db, deps.clock, tenant, { paymentId: path.paymentId }, body ?? {})));
  },
};
