import { captureHold, releaseHold } from '../../domain/checkout/payment-operations.js';
import { ok } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { holdResultView } from './views/payment.view.js';

export const holdHandlers: CheckoutHandlers = {
  async capturePayment({ db, deps, tenant, path, body }) {
    return ok(holdResultView(await captureHold(db, deps.clock, tenant, path.paymentId, body ?? {})));
  },
  async releasePayment({ db, deps, tenant, path }) {
    return ok(holdResultView(await releaseHold(db, deps.clock, tenant, path.paymentId)));
  },
};
