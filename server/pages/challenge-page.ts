// The sandbox 3-D Secure page (`/3ds/{challengeId}`): plays the card issuer. HTML, outside
// `/v1`, no API key: the long random challenge id is the credential. It shows what is being
// paid and two buttons; the form is answered once, then the payer's browser goes back (303) to
// the return URL. Everything shown is escaped; no script runs on it.
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import express, { type Request, type Response, Router } from 'express';
import type { AppDeps } from '../api/types.js';
import { type ChallengeGone, type ChallengeView, answerChallenge, viewChallenge } from '../domain/checkout/session-challenge.js';
import { minorUnits } from '../shared/money.js';
import { CHALLENGE_ID } from '../rails/issuer-challenge.js';
import { escapeHtml } from './kit/html.js';
import { formFields } from './kit/route.js';

const CSS = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:26rem;margin:3rem auto;background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(0,0,0,.08);padding:2rem}
h1{font-size:1.25rem;margin:0 0 .25rem}p.sub{color:#5b6475;margin:0 0 1.5rem;font-size:.9rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.5rem 1rem;margin:0 0 1.5rem}dt{color:#5b6475}dd{margin:0;font-weight:600;text-align:right}
.amount{font-size:1.5rem}button{display:block;width:100%;padding:.8rem;border-radius:8px;font-size:1rem;cursor:pointer;margin-top:.75rem}
.ok{background:#1a7f4b;color:#fff;border:0}.fail{background:#fff;color:#b3261e;border:1px solid #b3261e}
.badge{display:inline-block;font-size:.75rem;background:#fff4d6;color:#7a5300;border-radius:4px;padding:.1rem .4rem;margin-bottom:1rem}`;
const CSS_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  maestro: 'Maestro',
};

const origin = (url: string | null): string | undefined => {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Security headers of every page: framing allowed (an issuer's challenge is shown inside the
 * embedded form's frame on the merchant's page, as 3-D Secure challenge windows are), no script at all, styles only
 * this page's own, the form posting only here (and its redirect only to the return URL's
 * origin), no referrer (the URL carries the challenge id), never cached.
 */
function secure(res: Response, returnUrl: string | null = null): void {
  const formAction = ["'self'", origin(returnUrl)].filter(Boolean).join(' ');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src ${CSS_HASH}; img-src 'self'; form-action ${formAction}; frame-ancestors *; base-uri 'none'`,
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${CSS}</style></head>
<body><main>${body}</main></body></html>`;
}

/** Sends an issuer page (its own look and security headers: no script, never cached, no referrer). */
export function sendIssuerPage(res: Response, status: number, title: string, body: string, returnUrl: string | null = null): void {
  send(res, status, title, body, returnUrl);
}

function send(res: Response, status: number, title: string, body: string, returnUrl: string | null = null): void {
  secure(res, returnUrl);
  res.status(status).type('html').send(page(title, body));
}

const formatAmount = (amount: string, currency: string) => `${new Decimal(amount).toFixed(minorUnits(currency))} ${currency}`;

/** What the issuer's challenge page shows and where its form posts (a payment's challenge, or a card kept on file). */
export interface IssuerChallenge {
  action: string;
  formToken: string;
  merchantName: string;
  /** What is being authorized: an amount, or that nothing is charged. */
  amount: string;
  brand: string | null;
  last4: string | null;
  title?: string;
}

/** The issuer's challenge: the merchant, the amount, the card, and the two answers. */
export function issuerChallengePage(c: IssuerChallenge): string {
  const brand = c.brand ? (BRANDS[c.brand] ?? c.brand) : 'Card';
  return `<span class="badge">Sandbox: test mode issuer</span>
<h1>${escapeHtml(c.title ?? 'Confirm your payment')}</h1>
<p class="sub">Your card issuer asks you to confirm this ${c.title ? 'card' : 'payment'} (3-D Secure).</p>
<dl>
<dt>Merchant</dt><dd data-field="merchant">${escapeHtml(c.merchantName)}</dd>
<dt>Amount</dt><dd class="amount" data-field="amount">${escapeHtml(c.amount)}</dd>
<dt>Card</dt><dd data-field="card">${escapeHtml(brand)} •••• ${escapeHtml(c.last4 ?? '----')}</dd>
</dl>
<form method="post" action="${escapeHtml(c.action)}">
<input type="hidden" name="token" value="${escapeHtml(c.formToken)}">
<button class="ok" type="submit" name="answer" value="complete">Complete authentication</button>
<button class="fail" type="submit" name="answer" value="fail">Fail authentication</button>
</form>`;
}

function challengePage(view: ChallengeView): string {
  const { challenge, payment, method, merchantName } = view;
  return issuerChallengePage({
    action: `/3ds/${challenge.id}`,
    formToken: challenge.form_token,
    merchantName,
    amount: formatAmount(payment.amount, payment.currency),
    brand: method?.brand ?? null,
    last4: method?.last4 ?? null,
  });
}

const GONE: Record<ChallengeGone, string> = {
  succeeded: 'This authentication was already completed.',
  failed: 'This authentication was already answered.',
  replaced: 'This authentication was replaced by a newer payment attempt.',
  expired: 'This authentication expired with its checkout session.',
};

function notFound(res: Response): void {
  send(res, 404, 'Not found', '<h1>Not found</h1><p class="sub">There is no such authentication. Check the link you followed.</p>');
}

function gone(res: Response, reason: ChallengeGone): void {
  send(res, 410, 'No longer available', `<h1>No longer available</h1><p class="sub">${escapeHtml(GONE[reason])} You can close this window.</p>`);
}

/** The `/3ds` pages, mounted by the app before the API routes. */
export function threeDSecurePages(deps: AppDeps): Router {
  const router = Router();
  router.use(express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 }));
  router.get('/:challengeId', (req: Request<{ challengeId: string }>, res, next) => showChallenge(deps, req, res, next));
  router.post('/:challengeId', (req: Request<{ challengeId: string }>, res, next) => answerChallengePage(deps, req, res, next));
  router.use((_req, res) => notFound(res));
  router.use(failurePage);
  return router;
}

/** GET: the page that plays the issuer, or why it is not there. */
async function showChallenge(deps: AppDeps, req: Request<{ challengeId: string }>, res: Response, next: express.NextFunction): Promise<void> {
  try {
    if (!CHALLENGE_ID.test(req.params.challengeId)) return notFound(res);
    const found = await viewChallenge(deps.database.db, deps.clock, req.params.challengeId);
    if (found.kind === 'not_found') return notFound(res);
    if (found.kind === 'gone') return gone(res, found.reason);
    send(res, 200, 'Confirm your payment', challengePage(found.view), found.view.challenge.return_url);
  } catch (err) {
    next(err);
  }
}

/** POST: the payer's answer (one of the page's buttons), then back to the shop or a closing page. */
async function answerChallengePage(deps: AppDeps, req: Request<{ challengeId: string }>, res: Response, next: express.NextFunction): Promise<void> {
  try {
    if (!CHALLENGE_ID.test(req.params.challengeId)) return notFound(res);
    const { answer, token } = formFields(req);
    if ((answer !== 'complete' && answer !== 'fail') || typeof token !== 'string') {
      return send(res, 400, 'Bad request', '<h1>Bad request</h1><p class="sub">Answer with one of the page\'s buttons.</p>');
    }
    const result = await answerChallenge(deps.database.db, deps.clock, req.params.challengeId, token, answer);
    if (result.kind === 'not_found') return notFound(res);
    if (result.kind === 'gone') return gone(res, result.reason);
    if (result.kind === 'bad_token')
      return send(res, 400, 'Bad request', '<h1>Bad request</h1><p class="sub">This form did not come from the authentication page. Open the page again.</p>');
    const done = result.outcome === 'succeeded' ? 'Authentication complete.' : 'Authentication failed.';
    if (result.returnUrl) {
      secure(res, result.returnUrl);
      return res.redirect(303, result.returnUrl);
    }
    send(res, 200, done, `<h1>${escapeHtml(done)}</h1><p class="sub">You can close this window and return to the shop.</p>`);
  } catch (err) {
    next(err);
  }
}

/** Anything that goes wrong here is a plain page, never a stack or a JSON body. */
function failurePage(err: unknown, req: Request, res: Response, _next: express.NextFunction): void {
  // Body parser errors carry their 4xx status (too large, bad encoding); anything else is ours.
  const reported = (err as { status?: unknown })?.status;
  const status = typeof reported === 'number' && reported >= 400 && reported < 500 ? reported : 500;
  if (status === 500) req.till?.log?.error({ err }, '3-D Secure page failed');
  send(
    res,
    status,
    'Something went wrong',
    '<h1>Something went wrong</h1><p class="sub">The authentication could not be processed. Try again in a moment.</p>',
  );
}
