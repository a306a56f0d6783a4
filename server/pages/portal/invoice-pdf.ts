// `GET /portal/{token}/invoices/{id}.pdf`: an invoice of the portal's customer, in the portal's
// mode, as a PDF (rendered by the invoices module). Anyone else's invoice is the not-found page.
import { Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import { portalInvoice } from '../../domain/billing/portal-view.js';
import { invoicePdfFilename, renderInvoicePdf } from '../../domain/invoices/invoice-pdf.js';
import { tenantOf } from '../../shared/tenant.js';
import { idParam, inPortal, sendPortalError } from './context.js';

/** The PDF route of a portal. */
export function portalInvoicePdf(deps: AppDeps): Router {
  const router = Router();
  router.get(
    '/:token/invoices/:file',
    inPortal(deps, async (req, res, ctx) => {
      const match = /^([0-9]+)\.pdf$/.exec(String(req.params.file));
      const id = match ? idParam(match[1]) : undefined;
      if (id === undefined) return sendPortalError(res, 404, 'Not found', 'There is no such invoice in your account.', ctx.brand);
      const invoice = await portalInvoice(deps.database.db, ctx.session, id);
      const pdf = await renderInvoicePdf(deps.database.db, tenantOf(ctx.session), invoice.id);
      res.setHeader('Content-Disposition', `inline; filename="${invoicePdfFilename(invoice)}"`);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.status(200).type('application/pdf').send(pdf);
    }),
  );
  return router;
}
