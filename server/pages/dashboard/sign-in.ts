// Signing in and out. The key is posted once, over this form, and turned into a session: the
// browser keeps only the session's cookie. Attempts are limited per client address (10 a minute,
// shared by every process); the form carries a token of its own (a double-submit cookie), since
// there is no session yet to derive one from.
import { randomBytes } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { AppDeps } from '../../api/types.js';
import { attemptLimiter } from '../../http/rate-limit.js';
import { signInToDashboard, signOutOfDashboard } from '../../domain/merchants/dashboard-session.service.js';
import { html } from '../kit/html.js';
import { formFields, pageHandler } from '../kit/route.js';
import { clearSessionCookie, DASHBOARD_PATH, sameCsrf, sessionToken, setSessionCookie } from './context.js';
import { flashBox } from './kit/form.js';
import { sendBarePage } from './layout.js';

const FORM_COOKIE = 'till_dashboard_form';
/** Sign-in attempts a client address may make per minute (times the server's rate-limit scale). */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;

/** Where to go after signing in: a dashboard address only (never another site). */
function nextOf(value: unknown): string {
  return typeof value === 'string' && /^\/dashboard(\/[A-Za-z0-9_\-/]*)?(\?[A-Za-z0-9_\-=&%.]*)?$/.test(value) ? value : DASHBOARD_PATH;
}

function formToken(req: Request): string | undefined {
  const m = /(?:^|;\s*)till_dashboard_form=([A-Za-z0-9_-]{20,100})/.exec(req.get('cookie') ?? '');
  return m?.[1];
}

function sendSignIn(req: Request, res: Response, deps: AppDeps, options: { alert?: string; status?: number } = {}): void {
  const token = formToken(req) ?? randomBytes(24).toString('base64url');
  res.cookie(FORM_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure || deps.config.publicBaseUrl.startsWith('https:'),
    path: DASHBOARD_PATH,
  });
  const posted = formFields(req);
  const mode = req.query.mode === 'live' || posted.mode === 'live' ? 'live' : 'test';
  const next = nextOf(req.query.next ?? posted.next);
  const body = html`<section class="card narrow" aria-labelledby="sign-in-title">
<h1 id="sign-in-title">Sign in to the dashboard</h1>
<p>Paste a secret key (<code>sk_${mode}_…</code>) or a restricted key (<code>rk_${mode}_…</code>) of your merchant. The key is not kept by your browser: you get a session of 12 hours.</p>
${flashBox({ alert: options.alert })}
<form method="post" action="/dashboard/sign-in" class="stack" autocomplete="off">
<input type="hidden" name="csrf" value="${token}"><input type="hidden" name="next" value="${next}">
<div class="field"><label for="key">API key</label><input id="key" name="key" type="password" required autocomplete="off" spellcheck="false"></div>
<button type="submit" class="button primary">Sign in</button>
</form></section>`;
  sendBarePage(res, { title: 'Sign in', body, status: options.status ?? 200 });
}

/** `/dashboard/sign-in` (GET, POST) and `/dashboard/sign-out` (POST, its form token checked by the caller). */
export function signInRoutes(deps: AppDeps): Router {
  const router = Router();
  const limiter = attemptLimiter(deps.database, 'dash_signin', SIGN_IN_ATTEMPTS_PER_MINUTE * deps.config.rateLimitScale, 60);
  router.get('/sign-in', (req, res) => sendSignIn(req, res, deps));
  router.post(
    '/sign-in',
    pageHandler(async (req, res) => {
      const fields = formFields(req);
      const expected = formToken(req);
      if (!expected || !sameCsrf(expected, fields.csrf)) return sendSignIn(req, res, deps, { alert: 'This form expired. Sign in again.', status: 403 });
      try {
        await limiter.consume(req.ip ?? 'unknown');
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        res.setHeader('Retry-After', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
        return sendSignIn(req, res, deps, { alert: 'Too many sign-in attempts. Wait a minute, then try again.', status: 429 });
      }
      const key = typeof fields.key === 'string' ? fields.key.trim() : '';
      const result = await signInToDashboard(deps.database.db, deps.clock, key, sessionToken(req));
      if (!result.ok) {
        const alert =
          result.reason === 'other_merchant' ? 'This key belongs to another merchant. Sign out first.' : 'That is not a valid secret or restricted key.';
        return sendSignIn(req, res, deps, { alert, status: 401 });
      }
      setSessionCookie(req, res, deps, result.token, result.expiresAt);
      res.redirect(303, nextOf(fields.next));
    }),
  );
  return router;
}

/** Ends the session and forgets its cookie. */
export async function signOut(req: Request, res: Response, deps: AppDeps): Promise<void> {
  const token = sessionToken(req);
  if (token) await signOutOfDashboard(deps.database.db, token);
  clearSessionCookie(req, res, deps);
  res.redirect(303, '/dashboard/sign-in');
}
