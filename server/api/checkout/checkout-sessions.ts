import { confirmSession, tokenizeCard } from '../../domain/checkout/confirm.js';
import { createSession } from '../../domain/checkout/session-create.js';
import { cancelSession, getSessionWithPayment } from '../../domain/checkout/session.service.js';
import { getMerchant } from '../../domain/merchants/merchant.service.js';
import { created, noContent, ok, sessionSettings } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { paymentMethodView } from './views/payment.view.js';
import { confirmResultView, sessionCreatedView, sessionStatusView, sessionToCreate, sessionView } from './views/session.view.js';

export const checkoutSessionHandlers: CheckoutHandlers = {
  async createCheckoutSession({ db, deps, tenant, body }) {
    const result = await createSession(db, deps.clock, sessionSettings(deps), tenant, sessionToCreate(body));
    return { status: result.reused ? 200 : 201, body: sessionCreatedView(result) };
  },
  async retrieveCheckoutSession({ db, deps, tenant, path }) {
    const { session, payment, refund } = await getSessionWithPayment(db, deps.clock, tenant, path.id);
    return ok(sessionView(session, await getMerchant(db, tenant.merchantId), payment, refund));
  },
  async getCheckoutSessionStatus({ db, deps, tenant, path }) {
    const { session, payment } = await getSessionWithPayment(db, deps.clock, tenant, path.id);
    return ok(sessionStatusView(session, payment));
  },
  async tokenizeCard({ db, deps, tenant, path, body }) {
    return created(paymentMethodView(await tokenizeCard(db, deps.clock, tenant, path.id, body)));
  },
  async confirmCheckoutSession({ db, deps, tenant, path, body }) {
    return ok(confirmResultView(await confirmSession(db, deps.clock, tenant, path.id, body), deps.config.publicBaseUrl));
  },
  async cancelCheckoutSession({ db, deps, tenant, path }) {
    await cancelSession(db, deps.clock, tenant, path.id);
    return noContent();
  },
};
