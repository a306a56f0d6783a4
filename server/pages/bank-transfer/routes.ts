// `GET /invoice/{identifier}/bank-transfer/{paymentId}`: the page of payment instructions a bank
// transfer's `approvalDataOrUrl` sends the payer to (Commerce `payinvoice` and `POST /v1/payment`).
// Public like the invoice page, on the same page kit and Content-Security-Policy; HTML outside `/v1`.
import { type Response, Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import { bankTransferPage } from '../../domain/invoice-payments/bank-transfer-page.js';
import { html } from '../kit/html.js';
import { sendPage } from '../kit/layout.js';
import { identifierParam, pageHandler } from '../kit/route.js';
import { bankTransferBody } from './view.js';

function notFound(res: Response): void {
  sendPage(res, {
    title: 'Bank transfer not found',
    brand: null,
    status: 404,
    body: html`<h1>Bank transfer not found</h1><p>This link is not valid. Check the link you were sent, or ask the merchant for a new one.</p>`,
  });
}

/** The payment id of the address; undefined unless it is a positive integer in range. */
function paymentIdParam(value: string | undefined): number | undefined {
  if (!value || !/^[1-9][0-9]{0,9}$/.test(value)) return undefined;
  const id = Number(value);
  return id <= 2_147_483_647 ? id : undefined;
}

/** The bank transfer pages. */
export function bankTransferPages(deps: AppDeps): Router {
  const router = Router();
  router.get(
    '/invoice/:identifier/bank-transfer/:paymentId',
    pageHandler(async (req, res) => {
      const identifier = identifierParam(req);
      const paymentId = paymentIdParam(String(req.params.paymentId));
      const page = identifier && paymentId ? await bankTransferPage(deps.database.db, deps.clock, identifier, paymentId) : undefined;
      if (!page) return notFound(res);
      const { merchant } = page;
      sendPage(res, {
        title: `Bank transfer · ${merchant.name}`,
        brand: { name: merchant.name, logoUrl: merchant.logo_url, color: merchant.brand_color },
        body: bankTransferBody(page),
      });
    }),
  );
  return router;
}
