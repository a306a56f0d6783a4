// `GET /pay/{sessionId}`: the hosted checkout page, and the same page framed by a merchant's
// page for an embedded session (`?embed=1`, mounted by `/js/till.js`). HTML outside `/v1`.
import { type RequestHandler, Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import { type HostedCheckout, hostedCheckout } from '../../domain/checkout/hosted-page.js';
import { html } from '../kit/html.js';
import { type Brand, sendPage } from '../kit/layout.js';
import { endPage, payablePage } from './view.js';

const SESSION_ID = /^cs_(test|live)_[A-Za-z0-9]{8,64}$/;

const brandOf = (view: HostedCheckout): Brand => ({ name: view.merchant.name, logoUrl: view.merchant.logo_url, color: view.merchant.brand_color });

function renderCheckout(deps: AppDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const id = String(req.params.sessionId);
      const embedded = req.query.embed === '1';
      const view = SESSION_ID.test(id) ? await hostedCheckout(deps.database.db, deps.clock, id) : undefined;
      const framing = embedded ? 'any' : 'none';
      if (!view || (view.session.mode === 'embedded') !== embedded) {
        return sendPage(res, {
          title: 'Checkout not found',
          brand: null,
          status: 404,
          framing,
          body: html`<h1>Checkout not found</h1><p>This payment link is not valid. Return to the shop and start again.</p>`,
        });
      }
      const brand = brandOf(view);
      if (view.state !== 'payable') {
        const end = endPage(view);
        return sendPage(res, {
          title: `${end.title} · ${brand.name}`,
          brand,
          framing,
          body: end.body,
          script: '/assets/checkout.js',
          data: pageData(view, embedded),
        });
      }
      const data = { ...pageData(view, embedded), method: preferredMethod(view, req.query.method) };
      sendPage(res, { title: `Pay ${brand.name}`, brand, framing, body: payablePage(view), script: '/assets/checkout.js', data });
    } catch (err) {
      next(err);
    }
  };
}

/** The method to show first (`?method=`, as the invoice page asks): one the session offers, or the first. */
function preferredMethod(view: HostedCheckout, asked: unknown): string {
  return view.methods.find((m) => m === asked) ?? view.methods[0] ?? '';
}

/** What the script reads from the page: no secret (the client secret stays in the address fragment). */
function pageData(view: HostedCheckout, embedded: boolean): Record<string, string> {
  const { session } = view;
  return {
    session: session.id,
    key: view.publishableKey,
    state: view.state,
    methods: view.methods.join(' '),
    embedded: String(embedded),
    'success-url': session.success_url ?? '',
  };
}

/** The checkout pages. */
export function checkoutPages(deps: AppDeps): Router {
  const router = Router();
  router.get('/pay/:sessionId', renderCheckout(deps));
  return router;
}
