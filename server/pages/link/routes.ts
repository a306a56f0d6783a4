// `GET /pay/link/{identifier}`: the hosted page of a payment link (its `paymentUrl`, where its QR
// code and embed snippet lead). `POST /pay/link/{identifier}/code` sends an email verification
// code; `POST /pay/link/{identifier}` makes the payer's invoice, `.../subscribe` starts the payer's
// subscription (subscription links), and either sends them to the invoice page
// (`/invoice/{identifier}`) to pay. Plain forms; HTML outside `/v1`.
import express, { type Response, Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import { linkPageState } from '../../domain/links/link-access.js';
import { createLinkInvoice } from '../../domain/links/link-invoice.js';
import { createLinkSubscription } from '../../domain/links/link-subscription.js';
import { type PublicLink, sendVerificationCode, viewLinkByIdentifier } from '../../domain/links/link-public.js';
import { AppError } from '../../shared/errors.js';
import { html } from '../kit/html.js';
import { sendPage } from '../kit/layout.js';
import { identifierParam, pageHandler } from '../kit/route.js';
import { type LinkForm, linkBody } from './view.js';

function notFound(res: Response): void {
  sendPage(res, {
    title: 'Payment link not found',
    brand: null,
    status: 404,
    body: html`<h1>Payment link not found</h1><p>This payment link is not valid. Check the link you were given, or ask the merchant for a new one.</p>`,
  });
}

function sendLink(res: Response, page: PublicLink, form: LinkForm = {}, alert?: { status: number; message: string }): void {
  const { link, merchant } = page;
  sendPage(res, {
    title: `${link.name} · ${merchant.name}`,
    brand: { name: merchant.name, logoUrl: merchant.logo_url, color: link.button_color ?? merchant.brand_color },
    status: alert?.status ?? 200,
    body: linkBody(page, linkPageState(link, page.now), form, alert?.message),
  });
}

const text = (body: Record<string, unknown>, key: string): string | undefined => {
  const value = body[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};
const formOf = (body: Record<string, unknown>): LinkForm & { password?: string; verificationCode?: string } => {
  const form: LinkForm & { password?: string; verificationCode?: string } = {};
  for (const key of ['email', 'firstName', 'lastName', 'amount', 'quantity', 'verificationTokenId', 'verificationCode', 'password', 'planId'] as const) {
    const value = text(body, key);
    if (value !== undefined) form[key] = value;
  }
  return form;
};

/** A refusal the payer can act on is shown on the page; anything else goes on to the error handler. */
async function orShow(res: Response, deps: AppDeps, identifier: string, form: LinkForm, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    if (err.status === 404) return notFound(res);
    sendLink(res, await viewLinkByIdentifier(deps.database.db, deps.clock, identifier, false), form, { status: err.status, message: err.message });
  }
}

type Form = ReturnType<typeof formOf>;
/** What a form of the page does, given the link's identifier and the form; its refusals are shown on the page. */
type FormAction = (identifier: string, form: Form, res: Response) => Promise<void>;

const payerOf = (form: Form) => {
  if (!form.email || !form.firstName || !form.lastName) throw new AppError('parameter_missing', { message: 'Enter your email, first name and last name.' });
  return { ...form, email: form.email, firstName: form.firstName, lastName: form.lastName };
};

/** The link pages. */
export function linkPages(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps.database;
  const parse = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 12 });
  const again = (identifier: string) => viewLinkByIdentifier(db, deps.clock, identifier, false);
  /** A form's POST: the page's fields are kept for a second try, never the password or the code. */
  const post = (path: string, action: FormAction) =>
    router.post(
      path,
      parse,
      pageHandler(async (req, res) => {
        const identifier = identifierParam(req);
        if (!identifier) return notFound(res);
        const form = formOf((req.body ?? {}) as Record<string, unknown>);
        const { password: _p, verificationCode: _c, ...kept } = form;
        await orShow(res, deps, identifier, kept, () => action(identifier, form, res));
      }),
    );
  router.get(
    '/pay/link/:identifier',
    pageHandler(async (req, res) => {
      const identifier = identifierParam(req);
      if (!identifier) return notFound(res);
      await orShow(res, deps, identifier, {}, async () => sendLink(res, await viewLinkByIdentifier(db, deps.clock, identifier)));
    }),
  );
  post('/pay/link/:identifier/code', async (identifier, form, res) => {
    if (!form.email) throw new AppError('parameter_missing', { param: 'email', message: 'Enter your email.' });
    const sent = await sendVerificationCode(db, deps.clock, identifier, form.email);
    sendLink(res, await again(identifier), { email: sent.email, verificationTokenId: sent.tokenId });
  });
  post('/pay/link/:identifier', async (identifier, form, res) => {
    const { planId: _plan, ...payer } = payerOf(form);
    const invoice = await createLinkInvoice(db, deps.clock, identifier, payer);
    res.redirect(303, `/invoice/${invoice.identifier}`);
  });
  post('/pay/link/:identifier/subscribe', async (identifier, form, res) => {
    const planId = Number(form.planId);
    if (!Number.isInteger(planId) || planId < 1) throw new AppError('parameter_missing', { param: 'planId', message: 'Choose a plan.' });
    const { amount: _a, quantity: _q, ...payer } = payerOf(form);
    const started = await createLinkSubscription(db, deps.clock, identifier, { ...payer, planId });
    // A usage plan has nothing due now: the page of the link says the subscription started.
    if (started.invoice) return res.redirect(303, `/invoice/${started.invoice.identifier}`);
    sendLink(res, await again(identifier), {}, { status: 201, message: `Your subscription to ${started.plan.name} has started. Nothing is due now.` });
  });
  return router;
}
