// The portal session as the Checkout & Billing interface answers it: the token appears only here, inside `url`.
import type { components } from '../../../../generated/checkout.js';
import { type NewPortalSession, portalPageUrl } from '../../../domain/billing/portal-session.js';

export const portalSessionView = ({ session, token }: NewPortalSession, publicBaseUrl: string): components['schemas']['PortalSession'] => ({
  id: session.id,
  object: 'portal_session',
  clientId: session.customer_id,
  url: portalPageUrl(publicBaseUrl, token),
  returnUrl: session.return_url,
  livemode: session.livemode,
  expiresAt: session.expires_at.toISOString(),
  createdAt: session.created_at.toISOString(),
});
