// `GET /invoice/{identifier}`: the hosted invoice page, the `paymentUrl` of a Commerce invoice and
// the `hostedUrl` of a Checkout one. `POST /invoice/{identifier}/pay` (a button of the page) opens
// the hosted checkout page that pays what is due, and the payer comes back here. HTML outside `/v1`.
import express, { type Response, Router } from 'express';
import { INVOICE_STATUS } from '../../api/commerce/wire-values.js';
import type { AppDeps } from '../../api/types.js';
import { type HostedInvoice, type InvoicePageMethod, checkoutForInvoice, hostedInvoice } from '../../domain/checkout/invoice-page.js';
import { AppError } from '../../shared/errors.js';
import { html } from '../kit/html.js';
import { sendPage } from '../kit/layout.js';
import { identifierParam, pageHandler } from '../kit/route.js';
import { invoiceBody } from './view.js';

const METHODS: readonly string[] = ['card', 'wallet:qr'] satisfies InvoicePageMethod[];

function notFound(res: Response): void {
  sendPage(res, {
    title: 'Invoice not found',
    brand: null,
    status: 404,
    body: html`<h1>Invoice not found</h1><p>This invoice link is not valid. Check the link you were sent, or ask the merchant for a new one.</p>`,
  });
}

function sendInvoice(res: Response, page: HostedInvoice, alert?: { status: number; message: string }): void {
  const { invoice, merchant } = page;
  sendPage(res, {
    title: `Invoice ${invoice.invoice_number} · ${merchant.name}`,
    brand: { name: merchant.name, logoUrl: merchant.logo_url, color: merchant.brand_color },
    status: alert?.status ?? 200,
    body: invoiceBody(page, alert?.message),
    script: '/assets/invoice.js',
    // What the script follows: the identifier (public: it is in the address) and the status shown.
    data: { identifier: invoice.identifier, status: INVOICE_STATUS[invoice.status as keyof typeof INVOICE_STATUS] ?? invoice.status },
  });
}

/** The invoice pages. */
export function invoicePages(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps.database;
  router.get(
    '/invoice/:identifier',
    pageHandler(async (req, res) => {
      const identifier = identifierParam(req);
      const page = identifier ? await hostedInvoice(db, deps.clock, identifier) : undefined;
      return page ? sendInvoice(res, page) : notFound(res);
    }),
  );
  router.post(
    '/invoice/:identifier/pay',
    express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 5 }),
    pageHandler(async (req, res) => {
      const identifier = identifierParam(req);
      if (!identifier) return notFound(res);
      const method = String((req.body as Record<string, unknown> | undefined)?.method ?? '');
      const settings = { publicBaseUrl: deps.config.publicBaseUrl, allowLoopbackWebhooks: deps.config.allowLoopbackWebhooks };
      try {
        const target = METHODS.includes(method) ? await checkoutForInvoice(db, deps.clock, settings, identifier, method as InvoicePageMethod) : undefined;
        // Not payable now (paid meanwhile, cancelled, expired) or no such way: the page says why.
        return res.redirect(303, target ?? `/invoice/${identifier}`);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        const page = await hostedInvoice(db, deps.clock, identifier);
        return page ? sendInvoice(res, page, { status: err.status, message: `The payment could not start: ${err.message}` }) : notFound(res);
      }
    }),
  );
  return router;
}
