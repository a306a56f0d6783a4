import { confirmResult, paymentMethodObject } from '../../domain/payments/payment.mapper.js';
import { confirmSession, tokenizeCard } from '../../domain/payments/payment.service.js';
import { sessionCreated, sessionRetrieved, sessionStatus } from '../../domain/sessions/session.mapper.js';
import { cancelSession, createSession, getSession } from '../../domain/sessions/session.service.js';
import type { AuthContext } from '../../http/context.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

const caller = (auth: AuthContext) => ({ merchantId: merchantOf(auth), livemode: auth.livemode });

export const checkoutSessionHandlers: CheckoutHandlers = {
  async createCheckoutSession({ db, deps, auth, body }) {
    const created = await createSession(db, deps.clock, deps.config, caller(auth), body);
    return { status: created.reused ? 200 : 201, body: sessionCreated(created.session, created.clientSecret, created.generatedNotificationSecret) };
  },
  async retrieveCheckoutSession({ db, deps, auth, path }) {
    const session = await getSession(db, deps.clock, caller(auth), path.id);
    const merchant = await db.selectFrom('merchants').selectAll().where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
    const payment = session.payment_id === null ? undefined : await db.selectFrom('payments').selectAll().where('id', '=', session.payment_id).executeTakeFirst();
    return { status: 200, body: sessionRetrieved(session, merchant, payment) };
  },
  async getCheckoutSessionStatus({ db, deps, auth, path }) {
    const session = await getSession(db, deps.clock, caller(auth), path.id);
    const hold =
      session.payment_id === null
        ? undefined
        : await db.selectFrom('payments').select(['id', 'status', 'amount', 'authorized_amount', 'currency', 'authorization_expires_at']).where('id', '=', session.payment_id).executeTakeFirst();
    return { status: 200, body: sessionStatus(session, hold) };
  },
  async tokenizeCard({ db, deps, auth, path, body }) {
    return { status: 201, body: paymentMethodObject(await tokenizeCard(db, deps.clock, caller(auth), path.id, body)) };
  },
  async confirmCheckoutSession({ db, deps, auth, path, body }) {
    const { session, payment, nextAction } = await confirmSession(db, deps.clock, caller(auth), path.id, body, { publicBaseUrl: deps.config.publicBaseUrl });
    return { status: 200, body: confirmResult(session, payment, nextAction) };
  },
  async cancelCheckoutSession({ db, deps, auth, path }) {
    await cancelSession(db, deps.clock, caller(auth), path.id);
    return { status: 204 };
  },
};
