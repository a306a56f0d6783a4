// The subscription actions of the portal, all POST forms with the portal's form token: pause,
// resume, cancel (at period end or now), and the plan switch (choose, preview, confirm).
import { type Request, Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import {
  actOnSubscription,
  changePortalPlan,
  planChoices,
  type PortalSubscriptionAction,
  previewPortalPlanChange,
} from '../../domain/billing/portal-actions.js';
import { formFields } from '../kit/route.js';
import { backToOverview, idParam, inPortal, type PortalHandler, sendPortalError, sendPortalPage } from './context.js';
import { planChoicePage, planPreviewPage } from './plan-view.js';

const DONE: Record<PortalSubscriptionAction, string> = { pause: 'paused', resume: 'resumed', cancel_at_period_end: 'cancel-scheduled', cancel_now: 'canceled' };

/** `pause`, `resume`, or `cancel` with `when` = `period_end` | `now`; anything else is undefined. */
function actionOf(req: Request): PortalSubscriptionAction | undefined {
  const verb = String(req.params.action);
  if (verb === 'pause' || verb === 'resume') return verb;
  if (verb !== 'cancel') return undefined;
  const when = formFields(req).when;
  return when === 'now' ? 'cancel_now' : when === 'period_end' ? 'cancel_at_period_end' : undefined;
}

/** Runs `handle` with the subscription id from the path; a malformed id is the not-found page. */
function withSubscription(deps: AppDeps, handle: (id: number, ...args: Parameters<PortalHandler>) => Promise<void>) {
  return inPortal(deps, async (req, res, ctx) => {
    const id = idParam(req.params.id);
    if (id === undefined) return sendPortalError(res, 404, 'Not found', 'There is no such item in your account.', ctx.brand);
    await handle(id, req, res, ctx);
  });
}

/** The subscription routes of a portal. */
export function portalSubscriptionRoutes(deps: AppDeps): Router {
  const db = deps.database.db;
  const router = Router();
  router.post(
    '/:token/subscriptions/:id/plan',
    withSubscription(deps, async (id, _req, res, ctx) => {
      const { subscription, plans } = await planChoices(db, ctx.portal, id);
      sendPortalPage(res, ctx.brand, `Change plan · ${ctx.brand.name}`, planChoicePage(ctx, subscription, plans));
    }),
  );
  router.post(
    '/:token/subscriptions/:id/plan/preview',
    withSubscription(deps, async (id, req, res, ctx) => {
      const { subscription, plan, proration } = await previewPortalPlanChange(db, ctx.portal, id, idParam(formFields(req).planId));
      sendPortalPage(res, ctx.brand, `Confirm your new plan · ${ctx.brand.name}`, planPreviewPage(ctx, subscription, plan, proration));
    }),
  );
  router.post(
    '/:token/subscriptions/:id/plan/confirm',
    withSubscription(deps, async (id, req, res, ctx) => {
      await changePortalPlan(db, ctx.portal, id, idParam(formFields(req).planId));
      backToOverview(res, ctx, 'plan-changed');
    }),
  );
  router.post(
    '/:token/subscriptions/:id/:action',
    withSubscription(deps, async (id, req, res, ctx) => {
      const action = actionOf(req);
      if (!action) return sendPortalError(res, 404, 'Not found', 'There is no such action in your account.', ctx.brand);
      await actOnSubscription(db, ctx.portal, id, action);
      backToOverview(res, ctx, DONE[action]);
    }),
  );
  return router;
}
