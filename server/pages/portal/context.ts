// Every portal request starts here: the token in the path opens the portal (or an error page),
// a POST must carry the session's form token and come from this site, and what goes wrong is a
// page, never a stack or a JSON body.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../../api/types.js';
import type { OpenPortal } from '../../domain/billing/portal-card.js';
import { isPortalForm, openPortal, PORTAL_PATH } from '../../domain/billing/portal-session.js';
import { portalOverview } from '../../domain/billing/portal-view.js';
import { getMerchant } from '../../domain/merchants/merchant.service.js';
import { AppError } from '../../shared/errors.js';
import { type Brand, sendPage } from '../kit/layout.js';
import type { SafeHtml } from '../kit/html.js';
import { formFields } from '../kit/route.js';
import { errorBody, type Flash, overviewPage, type PortalPage } from './view.js';

/** An open portal, as a request handler sees it. */
export interface PortalRequestContext extends PortalPage {
  portal: OpenPortal;
  brand: Brand;
  deps: AppDeps;
}

export type PortalHandler = (req: Request, res: Response, ctx: PortalRequestContext) => Promise<void>;

/** Sends a page of the portal (the kit's layout and security headers). */
export function sendPortalPage(res: Response, brand: Brand | null, title: string, body: SafeHtml, status = 200): void {
  sendPage(res, { title, brand, body, status });
}

/** The error page: an unknown or expired link, or something that is not this customer's. */
export function sendPortalError(res: Response, status: number, title: string, message: string, brand: Brand | null = null): void {
  sendPortalPage(res, brand, title, errorBody(title, message), status);
}

/** The portal's main page, with what just happened or what went wrong. */
export async function sendOverview(res: Response, ctx: PortalRequestContext, flash: Flash = {}, status = 200): Promise<void> {
  const overview = await portalOverview(ctx.deps.database.db, ctx.session);
  sendPortalPage(res, ctx.brand, `Your account · ${ctx.brand.name}`, overviewPage(ctx, overview, flash), status);
}

/** Whether a POST came from this site (browsers say so in Sec-Fetch-Site; older ones send nothing, and the form token still applies). */
const fromThisSite = (req: Request): boolean => {
  const site = req.get('sec-fetch-site');
  return site === undefined || site === 'same-origin' || site === 'none';
};

/**
 * Runs `handle` for an open portal; answers the error pages for a bad link, an expired one, or a
 * form that is not the portal's. With `ownFormToken`, the handler checks a form token of its own
 * (the issuer page's answer) instead of the portal's.
 */
export function inPortal(deps: AppDeps, handle: PortalHandler, options: { ownFormToken?: boolean } = {}): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const token = String(req.params.token);
      const access = await openPortal(deps.database.db, deps.clock, token);
      if (access.kind === 'not_found')
        return sendPortalError(res, 404, 'Link not valid', 'This account link is not valid. Go back to the shop and open your account again.');
      const merchant = await getMerchant(deps.database.db, access.session.merchant_id);
      const brand: Brand = { name: merchant.name, logoUrl: merchant.logo_url, color: merchant.brand_color };
      if (access.kind === 'expired')
        return sendPortalError(res, 410, 'Link expired', `This account link has expired. Go back to ${merchant.name} and open your account again.`, brand);
      const ctx: PortalRequestContext = { portal: access, session: access.session, base: `${PORTAL_PATH}/${token}`, brand, deps };
      if (req.method === 'POST' && (!fromThisSite(req) || (!options.ownFormToken && !isPortalForm(access.session, formFields(req).form)))) {
        return sendPortalError(res, 403, 'Form not accepted', 'This form did not come from your account page. Open the page again and retry.', brand);
      }
      await handle(req, res, ctx).catch((err) => refused(res, ctx, err));
    } catch (err) {
      next(err);
    }
  };
}

/** A refused action: another customer's object is the error page (nothing about it is shown); any other refusal shows its message on the page. */
async function refused(res: Response, ctx: PortalRequestContext, err: unknown): Promise<void> {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'resource_not_found') return sendPortalError(res, 404, 'Not found', 'There is no such item in your account.', ctx.brand);
  await sendOverview(res, ctx, { alert: err.message }, err.status);
}

/** A positive integer id from the path (as the database holds them), or undefined. */
export function idParam(value: unknown): number | undefined {
  const text = String(value);
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const id = Number(text);
  return id <= 2147483647 ? id : undefined;
}

/** After a change, the main page again (POST, then redirect, then GET: a reload repeats nothing). */
export function backToOverview(res: Response, ctx: PortalRequestContext, done: string): void {
  res.redirect(303, `${ctx.base}?done=${encodeURIComponent(done)}`);
}
