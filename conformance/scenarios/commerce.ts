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
import { linkScenarios } from './commerce/links.js';

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

export const commerceScenarios: Scenario[] = [...commerceInvoiceScenarios, ...fundsScenarios, ...invoiceStateScenarios, ...commercePayments, ...payoutScenarios, ...links, ...linkScenarios, ...catalogScenarios, ...platform, ...commerceDirectPayments, ...otherOperations, ...identityScenarios];
