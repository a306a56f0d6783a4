import { authenticateSrc, lookupSrc } from '../../domain/checkout/click-to-pay.js';
import { ok } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { srcAuthenticationView, srcLookupView } from './views/misc.view.js';

/** Click to pay (SRC) on a session (publishable key + client secret). */
export const srcHandlers: CheckoutHandlers = {
  async lookupSrcCards({ db, deps, tenant, path, body }) {
    return ok(srcLookupView(await lookupSrc(db, deps.clock, tenant, path.id, body.email)));
  },
  async authenticateSrcCard({ db, deps, tenant, path, body }) {
    return ok(srcAuthenticationView(await authenticateSrc(db, deps.clock, tenant, path.id, body)));
  },
};
