import { srcAuthentication, srcLookupResult } from '../../domain/saved-cards/saved-card.mapper.js';
import { authenticateSrc, lookupSrc } from '../../domain/saved-cards/src.service.js';
import type { AuthContext } from '../../http/context.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

const caller = (auth: AuthContext) => ({ merchantId: merchantOf(auth), livemode: auth.livemode });

/** Click to pay (SRC) on a session (publishable key + client secret). */
export const srcHandlers: CheckoutHandlers = {
  async lookupSrcCards({ db, deps, auth, path, body }) {
    return { status: 200, body: srcLookupResult(await lookupSrc(db, deps.clock, caller(auth), path.id, body.email)) };
  },
  async authenticateSrcCard({ db, deps, auth, path, body }) {
    return { status: 200, body: srcAuthentication(await authenticateSrc(db, deps.clock, caller(auth), path.id, body)) };
  },
};
