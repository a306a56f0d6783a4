import { withdrawQr } from '../../domain/payments/wallet.service.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

export const walletHandlers: CheckoutHandlers = {
  async withdrawCheckoutSessionQr({ db, deps, auth, path }) {
    return { status: 200, body: await withdrawQr(db, deps.clock, { merchantId: merchantOf(auth), livemode: auth.livemode }, path.id) };
  },
};
