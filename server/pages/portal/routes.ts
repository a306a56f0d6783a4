// The hosted customer portal, `/portal/{token}`: HTML outside `/v1`, opened by the secret token
// of a portal session (`POST /v1/portal-sessions`). One customer, one mode, one hour.
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import { PORTAL_PATH } from '../../domain/billing/portal-session.js';
import { portalSubscriptionRoutes } from './actions.js';
import { portalCardRoutes } from './card.js';
import { portalInvoicePdf } from './invoice-pdf.js';
import { inPortal, sendOverview, sendPortalError } from './context.js';

/** What the main page says after a change (`?done=`): constant text, so nothing from the address reaches the page. */
const DONE: Record<string, { notice?: string; alert?: string }> = {
  'card-saved': { notice: 'Your card is saved. It is now used for your subscriptions.' },
  'card-not-authenticated': { alert: 'Your bank did not confirm the card, so it was not saved. Try again or use another card.' },
  paused: { notice: 'Your subscription is paused.' },
  resumed: { notice: 'Your subscription is resumed.' },
  'cancel-scheduled': { notice: 'Your subscription will end at the end of the current period.' },
  canceled: { notice: 'Your subscription is canceled.' },
  'plan-changed': { notice: 'Your plan is changed.' },
};

/** The portal's pages, mounted by the app at `/portal`. */
export function portalPages(deps: AppDeps): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20 }));
  router.get(
    '/:token',
    inPortal(deps, async (req, res, ctx) => {
      await sendOverview(res, ctx, DONE[String(req.query.done)] ?? {});
    }),
  );
  router.use(portalCardRoutes(deps));
  router.use(portalInvoicePdf(deps));
  router.use(portalSubscriptionRoutes(deps));
  router.use((_req, res) => sendPortalError(res, 404, 'Not found', 'There is no such page. Go back to the shop and open your account again.'));
  // Anything that goes wrong here is a plain page, never a stack or a JSON body.
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const reported = (err as { status?: unknown })?.status;
    const status = typeof reported === 'number' && reported >= 400 && reported < 500 ? reported : 500;
    if (status === 500) req.till?.log?.error({ err }, 'portal page failed');
    sendPortalError(res, status, 'Something went wrong', 'Your request could not be processed. Try again in a moment.');
  });
  return router;
}

export { PORTAL_PATH };
