import { createPortalSession } from '../../domain/billing/portal-session.js';
import { created } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { portalSessionView } from './views/portal.view.js';

export const portalSessionHandlers: CheckoutHandlers = {
  async createPortalSession({ db, deps, tenant, body }) {
    return created(portalSessionView(await createPortalSession(db, deps.clock, tenant, body), deps.config.publicBaseUrl));
  },
};
