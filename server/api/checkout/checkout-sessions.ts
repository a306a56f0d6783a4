import { sessionCreated, sessionRetrieved, sessionStatus } from '../../domain/sessions/session.mapper.js';
import { cancelSession, createSession, getSession } from '../../domain/sessions/session.service.js';
import type { AuthContext } from '../../http/context.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

const caller = (auth: AuthContext) => ({ merchantId: merchantOf(auth), livemode: auth.livemode });

export const checkoutSessionHandlers: CheckoutHandlers = {
  async createCheckoutSession({ db, deps, auth, body }) {
    const created = await createSession(db, deps.clock, deps.config.publicBaseUrl, caller(auth), body);
    return { status: 201, body: sessionCreated(created.session, created.clientSecret, created.generatedNotificationSecret) };
  },
  async retrieveCheckoutSession({ db, deps, auth, path }) {
    const session = await getSession(db, deps.clock, caller(auth), path.id);
    const merchant = await db.selectFrom('merchants').selectAll().where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
    return { status: 200, body: sessionRetrieved(session, merchant) };
  },
  async getCheckoutSessionStatus({ db, deps, auth, path }) {
    return { status: 200, body: sessionStatus(await getSession(db, deps.clock, caller(auth), path.id)) };
  },
  async cancelCheckoutSession({ db, deps, auth, path }) {
    await cancelSession(db, deps.clock, caller(auth), path.id);
    return { status: 204 };
  },
};
