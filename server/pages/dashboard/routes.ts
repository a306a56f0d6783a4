// The merchant dashboard, `/dashboard`: sign-in, then the sections of registry.ts. Every page
// needs an open session; every POST needs the session's form token and a same-site request; a
// section's pages need its scopes, an action also those of the API operation it runs. What goes
// wrong is a page, never a stack or a JSON body.
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import { switchDashboardMode } from '../../domain/merchants/dashboard-session.service.js';
import { AppError } from '../../shared/errors.js';
import { html } from '../kit/html.js';
import { formFields } from '../kit/route.js';
import { dashboardContext, sameCsrf, sessionToken } from './context.js';
import { sendBarePage, sendDashboardPage } from './layout.js';
import { SECTIONS } from './registry.js';
import type { DashboardContext, DashboardHandler, DashboardSection } from './section.js';
import { signInRoutes, signOut } from './sign-in.js';

export { DASHBOARD_PATH } from './context.js';

type Locals = { dashboard?: DashboardContext };
const ctxOf = (res: Response): DashboardContext => (res.locals as Locals).dashboard!;

/** Whether a POST came from this site (browsers say so in Sec-Fetch-Site; the form token applies anyway). */
const fromThisSite = (req: Request): boolean => {
  const site = req.get('sec-fetch-site');
  return site === undefined || site === 'same-origin' || site === 'none';
};

/** Sends an error page, inside the dashboard's layout when signed in. */
export function sendDashboardError(res: Response, status: number, title: string, message: string): void {
  const body = html`<section class="card narrow"><h1>${title}</h1><p id="error-message">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p></section>`;
  const ctx = (res.locals as Locals).dashboard;
  if (ctx) sendDashboardPage(res, ctx, { title, body, status });
  else sendBarePage(res, { title, body, status });
}

/** The sections a context's key may see, in the registry's order. */
const navFor = (ctx: Omit<DashboardContext, 'nav'>) =>
  SECTIONS.filter((s) => ctx.can(...s.scopes) && !(s.testModeOnly && ctx.tenant.livemode)).map((s) => ({ path: s.path, label: s.label }));

/** Opens the session of the request: a page without one goes to sign-in; a POST without one, or without the form token, is refused. */
function requireSession(deps: AppDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ctx = await dashboardContext(deps, sessionToken(req), navFor, req.till?.requestId ?? null);
      if (!ctx) {
        if (req.method === 'GET') return res.redirect(303, `/dashboard/sign-in?next=${encodeURIComponent(req.originalUrl.slice(0, 300))}`);
        return sendDashboardError(res, 401, 'Signed out', 'Your session has ended. Sign in again.');
      }
      (res.locals as Locals).dashboard = ctx;
      if (req.method === 'POST' && (!fromThisSite(req) || !sameCsrf(ctx.csrf, formFields(req).csrf)))
        return sendDashboardError(res, 403, 'Form not accepted', 'This form did not come from your dashboard. Open the page again and retry.');
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** Runs a section's handler once the key holds `scopes` (and the mode is one the section shows). */
function gated(section: DashboardSection, scopes: readonly string[], handler: DashboardHandler) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const ctx = ctxOf(res);
    if (section.testModeOnly && ctx.tenant.livemode) return sendDashboardError(res, 404, 'Not in live mode', `${section.label} is only in test mode.`);
    const missing = scopes.find((s) => !ctx.can(s));
    if (missing !== undefined)
      return sendDashboardError(
        res,
        403,
        'Not allowed',
        `This key's role (${ctx.key.roleName ?? 'restricted'}) does not have the scope ${missing} that this needs.`,
      );
    try {
      await handler(req, res, ctx);
    } catch (err) {
      next(err);
    }
  };
}

function sectionRouter(section: DashboardSection): Router {
  const router = Router({ mergeParams: true });
  section.routes({
    get: (path, handler) => router.get(path, gated(section, section.scopes, handler)),
    post: (path, scopes, handler) => router.post(path, gated(section, [...section.scopes, ...scopes], handler)),
  });
  return router;
}

/** The dashboard's pages, mounted by the app at `/dashboard`. */
export function dashboardPages(deps: AppDeps): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));
  router.use(signInRoutes(deps));
  router.use(requireSession(deps));
  router.post('/sign-out', (req, res, next) => signOut(req, res, deps).catch(next));
  router.post('/mode', async (req, res, next) => {
    try {
      const live = formFields(req).mode === 'live';
      if (await switchDashboardMode(deps.database.db, deps.clock, sessionToken(req)!, live)) return res.redirect(303, '/dashboard');
      res.redirect(303, `/dashboard/sign-in?mode=${live ? 'live' : 'test'}`);
    } catch (err) {
      next(err);
    }
  });
  // Sections with a path first; the home page (path '') last, so it sees only what none matched.
  for (const section of [...SECTIONS].sort((a, b) => (a.path === '' ? 1 : 0) - (b.path === '' ? 1 : 0))) {
    if (section.path === '') router.use(sectionRouter(section));
    else router.use(`/${section.path}`, sectionRouter(section));
  }
  router.use((_req, res) => sendDashboardError(res, 404, 'Not found', 'There is no such page in the dashboard.'));
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof AppError && err.status < 500) return sendDashboardError(res, err.status, err.status === 404 ? 'Not found' : 'Not possible', err.message);
    req.till?.log?.error({ err }, 'dashboard page failed');
    sendDashboardError(res, 500, 'Something went wrong', 'The page could not be shown. Try again in a moment.');
  });
  return router;
}
