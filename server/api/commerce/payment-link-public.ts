import { createLinkInvoice } from '../../domain/links/link-invoice.js';
import { createLinkSubscription } from '../../domain/links/link-subscription.js';
import { linkByIdentifier, sendVerificationCode, viewLinkByIdentifier, viewLinkBySlug } from '../../domain/links/link-public.js';
import { issuedInvoice } from '../../domain/invoices/invoice-issuer.js';
import { qrPng } from '../../rails/wallet-qr.js';
import { created, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { commerceInvoiceView } from './views/invoice.view.js';
import { linkSubscriptionView } from './views/link-subscription.view.js';
import { linkPageUrl, publicLinkView } from './views/payment-link.view.js';

/** The public operations of payment links (no key): the hosted page's reads, its QR code, invoices and codes for payers. */
export const paymentLinkPublicHandlers: CommerceHandlers = {
  async getPaymentLinkQrCode({ db, deps, path }) {
    const link = await linkByIdentifier(db, path.identifier);
    const png = await qrPng(linkPageUrl(deps.config.publicBaseUrl, link), 512);
    return { status: 200, body: png, headers: { 'content-type': 'image/png', 'cache-control': 'public, max-age=300' } };
  },
  async getPaymentLinkByIdentifier({ db, deps, path }) {
    const { link, merchant, plans } = await viewLinkByIdentifier(db, deps.clock, path.identifier);
    return ok(publicLinkView(link, merchant, plans, deps.config.publicBaseUrl));
  },
  async getPaymentLinkByMerchantSlug({ db, deps, path }) {
    const { link, merchant, plans } = await viewLinkBySlug(db, deps.clock, path.merchantSlug, path.code);
    return ok(publicLinkView(link, merchant, plans, deps.config.publicBaseUrl));
  },
  async createPaymentLinkInvoice({ db, deps, path, body }) {
    const { invoice, merchant, location } = await issuedInvoice(db, await createLinkInvoice(db, deps.clock, path.identifier, body));
    return created(commerceInvoiceView(invoice, merchant, deps.config.publicBaseUrl, location));
  },
  async createPaymentLinkSubscription({ db, deps, path, body }) {
    const started = await createLinkSubscription(db, deps.clock, path.identifier, body);
    const { merchant, location } = await issuedInvoice(db, started.invoice);
    return created(linkSubscriptionView(started, merchant, deps.config.publicBaseUrl, location));
  },
  async sendPaymentLinkVerificationCode({ db, deps, path, body }) {
    const sent = await sendVerificationCode(db, deps.clock, path.identifier, body.email);
    return ok({
      tokenId: sent.tokenId,
      email: sent.email,
      expiresAt: sent.expiresAt.toISOString(),
      message: 'We sent a 6-digit code to your email. It is valid for 10 minutes.',
    });
  },
};
