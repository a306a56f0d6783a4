// The card on file in the portal: the form posts here, the card is tokenized on the server as at
// checkout (the number and CVC are dropped at once), and a card that asks for 3-D Secure goes to
// the sandbox issuer's page (the /3ds page's look, reached through this portal session) first.
import { type Request, type Response, Router } from 'express';
import type { AppDeps } from '../../api/types.js';
import { addPortalCard, answerCardSetup, viewCardSetup } from '../../domain/billing/portal-card.js';
import { AppError } from '../../shared/errors.js';
import { CHALLENGE_ID } from '../../rails/issuer-challenge.js';
import { formFields } from '../kit/route.js';
import { issuerChallengePage, sendIssuerPage } from '../challenge-page.js';
import { backToOverview, inPortal, type PortalRequestContext, sendPortalError } from './context.js';

const digits = (value: unknown, param: string): string => {
  const text = typeof value === 'string' ? value.replace(/[\s-]/g, '') : '';
  if (!/^[0-9]{1,23}$/.test(text))
    throw new AppError('invalid_card', {
      param,
      message: param === 'cardNumber' ? 'The card number is not valid. Check the digits.' : `Enter the card's ${param === 'cvc' ? 'CVC' : 'expiry'} in digits.`,
    });
  return text;
};

/** The card fields of the form; anything missing or not digits is 400 `invalid_card` with a message for the customer. */
function cardInput(body: Record<string, unknown>) {
  return {
    cardNumber: digits(body.cardNumber, 'cardNumber'),
    expiryMonth: Number(digits(body.expiryMonth, 'expiryMonth')),
    expiryYear: Number(digits(body.expiryYear, 'expiryYear')),
    cvc: digits(body.cvc, 'cvc'),
    name: typeof body.cardName === 'string' ? body.cardName.slice(0, 200) : undefined,
  };
}

const goneMessage = {
  succeeded: 'This card was already confirmed.',
  failed: 'This authentication was already answered.',
  expired: 'This authentication expired with your account link.',
} as const;

function setupPath(ctx: PortalRequestContext, setupId: string): string {
  return `${ctx.base}/card/3ds/${setupId}`;
}

/** The card routes of a portal: `POST card`, and the issuer's page of a card that asks for 3-D Secure. */
export function portalCardRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post(
    '/:token/card',
    inPortal(deps, async (req, res, ctx) => {
      const result = await addPortalCard(deps.database.db, ctx.portal, cardInput(formFields(req)));
      if (result.kind === 'authenticate') return res.redirect(303, setupPath(ctx, result.setup.id));
      backToOverview(res, ctx, 'card-saved');
    }),
  );
  router.get(
    '/:token/card/3ds/:setupId',
    inPortal(deps, async (req, res, ctx) => {
      const setupId = String(req.params.setupId);
      const found = CHALLENGE_ID.test(setupId) ? await viewCardSetup(deps.database.db, ctx.portal, setupId) : ({ kind: 'not_found' } as const);
      if (found.kind === 'not_found') return sendPortalError(res, 404, 'Not found', 'There is no such card authentication in your account.', ctx.brand);
      if (found.kind === 'gone')
        return sendIssuerPage(res, 410, 'No longer available', `<h1>No longer available</h1><p class="sub">${goneMessage[found.status]}</p>`);
      const { setup, method, merchantName } = found.view;
      const page = issuerChallengePage({
        action: setupPath(ctx, setup.id),
        formToken: setup.form_token,
        merchantName,
        amount: 'No charge (card verification)',
        brand: method.brand,
        last4: method.last4,
        title: 'Confirm your card',
      });
      sendIssuerPage(res, 200, 'Confirm your card', page);
    }),
  );
  router.post('/:token/card/3ds/:setupId', inPortal(deps, answerSetup(deps), { ownFormToken: true }));
  return router;
}

/** The answer on the issuer's page, with that page's own form token; the card setup is found only through this portal session. */
function answerSetup(deps: AppDeps) {
  return async (req: Request, res: Response, ctx: PortalRequestContext): Promise<void> => {
    const { answer, token } = formFields(req);
    const setupId = String(req.params.setupId);
    if ((answer !== 'complete' && answer !== 'fail') || typeof token !== 'string' || !CHALLENGE_ID.test(setupId)) {
      return sendPortalError(res, 400, 'Bad request', "Answer with one of the page's buttons.", ctx.brand);
    }
    const result = await answerCardSetup(deps.database.db, ctx.portal, setupId, token, answer);
    if (result.kind === 'not_found') return sendPortalError(res, 404, 'Not found', 'There is no such card authentication in your account.', ctx.brand);
    if (result.kind === 'gone')
      return sendIssuerPage(res, 410, 'No longer available', `<h1>No longer available</h1><p class="sub">${goneMessage[result.status]}</p>`);
    if (result.kind === 'bad_token')
      return sendPortalError(res, 400, 'Bad request', 'This form did not come from the authentication page. Open the page again.', ctx.brand);
    backToOverview(res, ctx, result.outcome === 'succeeded' ? 'card-saved' : 'card-not-authenticated');
  };
}
