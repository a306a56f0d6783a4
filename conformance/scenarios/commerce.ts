// Behaviour scenarios of commerce-api.md: invoices, payments and funding sources, accounts,
// transfers and dashboards, payment links, the subscription catalog, the notification hub, and
// the interface's authentication, paths and versioning. The scenarios still without a `run` are
// here; those that run live in `commerce/<area>.ts` (invoices, payments, funds, payouts).
import type { Scenario } from '../types.js';
import { commerceDirectPayments, commercePayments } from './commerce/payments.js';
import { commerceInvoiceScenarios } from './commerce/invoices.js';
import { invoiceStateScenarios } from './commerce/invoice-states.js';
import { payoutScenarios } from './commerce/payouts.js';
import { COMMERCE_DOC, pending, source } from './fixtures/scenario.js';
import { fundsScenarios } from './commerce/funds.js';
import { catalogScenarios } from './commerce/catalog.js';
import { identityScenarios } from './commerce/identity.js';

const INVOICE = 'createCommerceInvoice';
const PAY = [INVOICE, 'listInvoicePaymentMethods', 'payInvoice'];
const LINK = 'createPaymentLink';

const CONVENTIONS = source(COMMERCE_DOC, 'Resources and their fields', 'Conventions');
const PAYMENT_RESPONSE = source(COMMERCE_DOC, 'Resources and their fields', 'Payment response');
const LINK_FIELDS = source(COMMERCE_DOC, 'Resources and their fields', 'Payment link');
const DASHBOARDS = source(COMMERCE_DOC, 'Resources and their fields', 'Dashboards');
const OTHER_STATES = source(COMMERCE_DOC, 'States and transitions', 'Other status values');
const PAYMENT_RULES = source(COMMERCE_DOC, 'Endpoints', 'Payments and funding sources', 'Rules');
const ACCOUNTS = source(COMMERCE_DOC, 'Endpoints', 'Accounts');
const LINKS = source(COMMERCE_DOC, 'Endpoints', 'Payment links');
const CATALOG = source(COMMERCE_DOC, 'Endpoints', 'Subscription catalog');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');
const AUTH = source(COMMERCE_DOC, 'Authentication');
const EVENTS = source(COMMERCE_DOC, 'Events');
const ERRORS = source(COMMERCE_DOC, 'Errors');
const VERSIONING = source(COMMERCE_DOC, 'Versioning');

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

const platform: Scenario[] = [
  pending('commerce.auth.x-api-key', 'The Commerce interface authenticates with the `x-api-key` header (sandbox keys start `sk_test_`); without it a KEY operation is refused with 401', AUTH, ['listSubscriptionPlans']),
  pending('commerce.auth.bearer-not-accepted', 'A Bearer `Authorization` header alone does not authenticate a Commerce operation', AUTH, ['listSubscriptionPlans']),
  pending('commerce.auth.public-operations', 'PUBLIC operations (invoice by reference, invoice QR code, hosted payment-link operations) need no authentication', AUTH, [INVOICE, 'getInvoiceByReference', 'getInvoiceQrCode', LINK, 'getPaymentLinkByIdentifier', 'getPaymentLinkQrCode']),
  pending('commerce.paths.case-insensitive', 'Commerce paths match case-insensitively (`/v1/subscriptionPlan` is `/v1/SubscriptionPlan`)', CATALOG, ['listSubscriptionPlans', 'createSubscriptionProduct']),
  pending('commerce.paths.id-numbers', 'Path `id` parameters are numbers; a non-number is refused with 400', CATALOG, ['updateSubscriptionPlan']),
  pending('commerce.versioning.v1-and-api-payment', 'Paths use the `/v1` prefix, except payment operations under `/api/payment`', VERSIONING, [...PAY]),
  pending('commerce.events.invoice-updated-paid', 'The notification hub `/hubs/notifications` emits `InvoiceUpdated` with invoiceId and status `Paid` when an invoice is paid (needs a SignalR client)', EVENTS, [...PAY]),
  pending('commerce.events.link-notification-url', 'Payment links carry `notificationUrl` for payment webhooks', EVENTS, [LINK]),
];

const otherOperations: Scenario[] = [
  pending('commerce.other.send-invoice', '`POST /v1/invoice/{id}/send` sends an invoice (status Sent)', OTHER_OPS, [INVOICE, 'sendCommerceInvoice', 'getCommerceInvoice']),
];

export const commerceScenarios: Scenario[] = [...commerceInvoiceScenarios, ...fundsScenarios, ...invoiceStateScenarios, ...commercePayments, ...payoutScenarios, ...links, ...catalogScenarios, ...platform, ...commerceDirectPayments, ...otherOperations, ...identityScenarios];
