import { confirmOtp, listSessionSavedCards, startVerification } from '../../domain/checkout/saved-cards.js';
import { ok } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { savedCardListView, savedCardVerificationView } from './views/misc.view.js';

/** Saved cards of the session's customer, and their OTP verification (publishable key + client secret). */
export const savedCardHandlers: CheckoutHandlers = {
  async listSavedCards({ db, deps, tenant, path }) {
    return ok(savedCardListView(await listSessionSavedCards(db, deps.clock, tenant, path.id)));
  },
  async verifySavedCard({ db, deps, tenant, path, body }) {
    return ok(savedCardVerificationView(await startVerification(db, deps.clock, tenant, path.id, body.paymentMethodId)));
  },
  async confirmSavedCardOtp({ db, deps, tenant, path, body }) {
    const { paymentMethodId } = await confirmOtp(db, deps.clock, tenant, path.id, body);
    return ok({ verified: true as const, paymentMethodId });
  },
};
