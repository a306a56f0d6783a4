import { savedCardList, savedCardVerification } from '../../domain/saved-cards/saved-card.mapper.js';
import { confirmOtp, listSessionSavedCards, startVerification } from '../../domain/saved-cards/saved-card.service.js';
import type { AuthContext } from '../../http/context.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

const caller = (auth: AuthContext) => ({ merchantId: merchantOf(auth), livemode: auth.livemode });

/** Saved cards of the session's customer, and their OTP verification (publishable key + client secret). */
export const savedCardHandlers: CheckoutHandlers = {
  async listSavedCards({ db, deps, auth, path }) {
    return { status: 200, body: savedCardList(await listSessionSavedCards(db, deps.clock, caller(auth), path.id)) };
  },
  async verifySavedCard({ db, deps, auth, path, body }) {
    return { status: 200, body: savedCardVerification(await startVerification(db, deps.clock, caller(auth), path.id, body.paymentMethodId)) };
  },
  async confirmSavedCardOtp({ db, deps, auth, path, body }) {
    const { paymentMethodId } = await confirmOtp(db, deps.clock, caller(auth), path.id, body);
    return { status: 200, body: { verified: true, paymentMethodId } };
  },
};
