import { withdrawQr } from '../../domain/checkout/session-qr.js';
import { ok } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { qrWithdrawalView } from './views/session.view.js';

export const walletHandlers: CheckoutHandlers = {
  async withdrawCheckoutSessionQr({ db, deps, tenant, path }) {
    return ok(qrWithdrawalView(await withdrawQr(db, deps.clock, tenant, path.id)));
  },
};
