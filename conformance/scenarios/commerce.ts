// Behaviour scenarios of commerce-api.md: invoices, payments and funding sources, accounts,
// transfers and dashboards, payment links, the subscription catalog, the notification hub, and
// the interface's authentication, paths and versioning. The scenarios still without a `run` are
// here; those that run live in `commerce/<area>.ts` (invoices, payments, funds, payouts, catalog,
// identity, platform).
import type { Scenario } from '../types.js';
import { commerceDirectPayments, commercePayments } from './commerce/payments.js';
import { commerceInvoiceScenarios } from './commerce/invoices.js';
import { invoiceStateScenarios } from './commerce/invoice-states.js';
import { payoutScenarios } from './commerce/payouts.js';
import { COMMERCE_DOC, pending, source } from './fixtures/scenario.js';
import { fundsScenarios } from './commerce/funds.js';
import { commercePlatformScenarios } from './commerce/platform.js';
import { catalogScenarios } from './commerce/catalog.js';
import { identityScenarios } from './commerce/identity.js';

const LINK = 'createPaymentLink';

const CONVENTIONS = source(COMMERCE_DOC, 'Resources and their fields', 'Conventions');
const LINK_FIELDS = source(COMMERCE_DOC, 'Resources and their fields', 'Payment link');
const OTHER_STATES = source(COMMERCE_DOC, 'States and transitions', 'Other status values');
const LINKS = source(COMMERCE_DOC, 'Endpoints', 'Payment links');

const links: Scenario[] = [
  pending('commerce.links.create', 'Creating a payment link answers it with `code`, `identifier` (UUID), `paymentUrl`, `qrCodeUrl`, `embedCode` and `status`', LINKS, [LINK]),
  pending('commerce.links.decimal-strings', 'Payment link amounts (unitPrice, quantity, taxRate, taxAmount, totalAmountCollected) are decimal strings', CONVENTIONS, [LINK]),
  pending('commerce.links.urls', '`paymentUrl` is the hosted page URL ending in the identifier and `qrCodeUrl` is `/v1/PaymentLink/qr/{identifier}`', LINK_FIELDS, [LINK]),
  pending('commerce.links.embed-code', '`embedCode` is an HTML snippet; `GET /v1/PaymentLink/{id}/EmbedCode` answers embedCode and paymentUrl', LINKS, [LINK, 'getPaymentLinkEmbedCode']),
  pending('commerce.links.analytics', 'Each link carries clickCount, invoiceCount, completedPaymentCount and totalAmountCollected', LINK_FIELDS, [LINK, 'listPaymentLinks']),
  pending('commerce.links.max-uses-null-unlimited', '`maxUses` and `maxUsesPerCustomer` null mean unlimited', LINK_FIELDS, [LINK, 'createPaymentLinkInvoice']),
  pending('commerce.links.notification-url', 'A link\'s `notificationUrl` is a webhook URL kept on the link', LINK_FIELDS, [LINK, 'listPaymentLinks']),
  pending('commerce.links.list', '`GET /v1/PaymentLink` answers `value`, with `@odata.count` when `$count=true`, and takes $filter, $orderby, $top and $skip', LINKS, [LINK, 'listPaymentLinks']),
  pending('commerce.links.update-only-provided', 'Updating a link changes only the fields sent; the others keep their values', LINKS, [LINK, 'updatePaymentLink', 'getPaymentLinkByIdentifier']),
  pending('commerce.links.delete-permanent', 'Deleting a link is permanent: its public operations answer 404 afterwards', LINKS, [LINK, 'deletePaymentLink', 'getPaymentLinkByIdentifier']),
  pending('commerce.links.activate-draft', 'Activate makes a draft link accept payments', OTHER_STATES, [LINK, 'activatePaymentLink', 'createPaymentLinkInvoice']),
  pending('commerce.links.activate-inactive', 'Activate makes an inactive (deactivated) link accept payments again', OTHER_STATES, [LINK, 'deactivatePaymentLink', 'activatePaymentLink', 'createPaymentLinkInvoice']),
  pending('commerce.links.deactivate', 'Deactivate makes an active link unavailable to customers (CreateInvoice refused)', OTHER_STATES, [LINK, 'deactivatePaymentLink', 'createPaymentLinkInvoice']),
  pending('commerce.links.draft-not-payable', 'A draft link does not accept payments until activated', OTHER_STATES, [LINK, 'createPaymentLinkInvoice']),
  pending('commerce.links.qr-public', '`GET /v1/PaymentLink/qr/{identifier}` answers the QR image without any key', LINKS, [LINK, 'getPaymentLinkQrCode']),
  pending('commerce.links.get-by-identifier-public', '`GetByIdentifier(identifier=\'...\')` answers the link without any key', LINKS, [LINK, 'getPaymentLinkByIdentifier']),
  pending('commerce.links.get-by-merchant-slug-public', '`GetByMerchantSlug(merchantSlug=\'...\',code=\'...\')` answers the link without any key (vanity URLs)', LINKS, [LINK, 'getMerchant', 'getPaymentLinkByMerchantSlug']),
  pending('commerce.links.create-invoice', '`CreateInvoice(identifier=\'...\')` with email, firstName and lastName creates, without any key, an invoice payable through the payment endpoint', LINKS, [LINK, 'createPaymentLinkInvoice', 'listInvoicePaymentMethods', 'payInvoice']),
  pending('commerce.links.create-subscription', '`CreateSubscription(identifier=\'...\')` with email, firstName, lastName and planId creates a subscription with billing details for a subscription-type link', LINKS, ['createSubscriptionProduct', 'createSubscriptionPlan', LINK, 'createPaymentLinkSubscription']),
  pending('commerce.links.send-verification-code', '`SendVerificationCode(identifier=\'...\')` with email answers tokenId, message, expiresAt and email for a link that requires email verification', LINKS, [LINK, 'sendPaymentLinkVerificationCode']),
];



export const commerceScenarios: Scenario[] = [...commerceInvoiceScenarios, ...fundsScenarios, ...invoiceStateScenarios, ...commercePayments, ...payoutScenarios, ...links, ...catalogScenarios, ...commercePlatformScenarios, ...commerceDirectPayments, ...identityScenarios];
