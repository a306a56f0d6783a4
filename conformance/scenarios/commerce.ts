// Behaviour scenarios of commerce-api.md: invoices, payments and funding sources, accounts,
// transfers and dashboards, payment links, the subscription catalog, the notification hub, and
// the interface's authentication, paths and versioning. The scenarios still without a `run` are
// here; those that run live in `commerce/<area>.ts` (invoices, payments, funds, payouts).
import type { Scenario } from '../types.js';
import { commerceDirectPayments, commercePayments } from './commerce/payments.js';
import { commerceInvoiceScenarios } from './commerce/invoices.js';
import { invoiceStateScenarios } from './commerce/invoice-states.js';
import { payoutScenarios } from './commerce/payouts.js';
import { clocked, COMMERCE_DOC, pending, source } from './fixtures/scenario.js';
import { fundsScenarios } from './commerce/funds.js';
import { linkScenarios } from './commerce/links.js';

const INVOICE = 'createCommerceInvoice';
const PAY = [INVOICE, 'listInvoicePaymentMethods', 'payInvoice'];
const LINK = 'createPaymentLink';

const CONVENTIONS = source(COMMERCE_DOC, 'Resources and their fields', 'Conventions');
const PAYMENT_RESPONSE = source(COMMERCE_DOC, 'Resources and their fields', 'Payment response');
const LINK_FIELDS = source(COMMERCE_DOC, 'Resources and their fields', 'Payment link');
const CATALOG_FIELDS = source(COMMERCE_DOC, 'Resources and their fields', 'Subscription catalog');
const DASHBOARDS = source(COMMERCE_DOC, 'Resources and their fields', 'Dashboards');
const INVOICE_STATES = source(COMMERCE_DOC, 'States and transitions', 'Invoice status');
const OTHER_STATES = source(COMMERCE_DOC, 'States and transitions', 'Other status values');
const PAYMENTS = source(COMMERCE_DOC, 'Endpoints', 'Payments and funding sources');
const PAYMENT_RULES = source(COMMERCE_DOC, 'Endpoints', 'Payments and funding sources', 'Rules');
const ACCOUNTS = source(COMMERCE_DOC, 'Endpoints', 'Accounts');
const LINKS = source(COMMERCE_DOC, 'Endpoints', 'Payment links');
const CATALOG = source(COMMERCE_DOC, 'Endpoints', 'Subscription catalog');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');
const AUTH = source(COMMERCE_DOC, 'Authentication');
const EVENTS = source(COMMERCE_DOC, 'Events');
const ERRORS = source(COMMERCE_DOC, 'Errors');
const VERSIONING = source(COMMERCE_DOC, 'Versioning');

const invoiceStates: Scenario[] = [
  clocked('commerce.invoice-states.overdue-can-pay', '`Overdue` (past due date): can be paid', INVOICE_STATES, [...PAY, 'getCommerceInvoice']),
  clocked('commerce.invoice-states.expired-cannot-pay', '`Expired` (past its validity period): cannot be paid', INVOICE_STATES, [...PAY, 'getCommerceInvoice']),
];

const payments: Scenario[] = [
  pending('commerce.funding.pay-with-source', 'A registered funding source pays an invoice by `fundingSourceId`', PAYMENTS, ['registerCard', ...PAY]),
];

const accounts: Scenario[] = [
  pending('commerce.accounts.pay-from-balance', 'An invoice can be paid from a wallet account (`sourceAccountId`)', PAYMENTS, ['listAccounts', ...PAY]),
];

const links: Scenario[] = [
];

const catalog: Scenario[] = [
  pending('commerce.catalog.products-crud', 'Subscription products can be created (name required, description, subscriptionProductType), listed, changed with PATCH and deleted', CATALOG, ['createSubscriptionProduct', 'listSubscriptionProducts', 'updateSubscriptionProduct', 'deleteSubscriptionProduct']),
  pending('commerce.catalog.product-types', '`subscriptionProductType` is `Service`, `Digital` or `Physical`', CATALOG_FIELDS, ['createSubscriptionProduct']),
  pending('commerce.catalog.products-expand-media', '`$expand=Media` includes each product\'s `media` [{mediaUrl, isPrimary}]', CATALOG, ['createSubscriptionProduct', 'listSubscriptionProducts']),
  pending('commerce.catalog.products-list-odata', 'The product list answers `value` and `@odata.count` (with `$count=true`) and takes $orderby, $top and $skip', CATALOG, ['createSubscriptionProduct', 'listSubscriptionProducts']),
  pending('commerce.catalog.plans-crud', 'Subscription plans can be created, listed, changed with PATCH and deleted', CATALOG, ['createSubscriptionProduct', 'createSubscriptionPlan', 'listSubscriptionPlans', 'updateSubscriptionPlan', 'deleteSubscriptionPlan']),
  pending('commerce.catalog.plan-amount-string', 'A catalog plan\'s `amount` is a decimal string', CONVENTIONS, ['createSubscriptionProduct', 'createSubscriptionPlan']),
  pending('commerce.catalog.plan-fields', 'A catalog plan carries id, merchantId, productId, productName, name, description, details, status, amount, currency, timeUnit (Day, Week, Month, Year), timeInterval, subscriptionBillingType (Recurring, OneTime, Usage), validFrom and validTo', CATALOG_FIELDS, ['createSubscriptionProduct', 'createSubscriptionPlan']),
  pending('commerce.catalog.plan-periods', '`timeInterval` counts `timeUnit`s: Month 1 is monthly, Month 3 quarterly, Day 7 weekly', CATALOG_FIELDS, ['createSubscriptionProduct', 'createSubscriptionPlan', 'retrievePlan']),
  pending('commerce.catalog.plans-filter', 'The plan list filters with `$filter` by productId and status, and takes $expand, $top, $skip and $count', CATALOG, ['createSubscriptionProduct', 'createSubscriptionPlan', 'listSubscriptionPlans']),
  pending('commerce.catalog.plan-status-values', 'Plan status values are `Active`, `Inactive` and `Archived`, set through create and update', OTHER_STATES, ['createSubscriptionProduct', 'createSubscriptionPlan', 'updateSubscriptionPlan', 'listSubscriptionPlans']),
  pending('commerce.catalog.inventory-crud', 'Inventory items (productId, serialNumber, status) can be created, listed, changed with PATCH and deleted', CATALOG, ['createSubscriptionProduct', 'createSubscriptionInventoryItem', 'listSubscriptionInventoryItems', 'updateSubscriptionInventoryItem', 'deleteSubscriptionInventoryItem']),
  pending('commerce.catalog.inventory-fields', 'An inventory item carries id, productId, productName, serialNumber, status and createdDateTime', CATALOG_FIELDS, ['createSubscriptionProduct', 'createSubscriptionInventoryItem']),
  pending('commerce.catalog.inventory-status-moves', 'An inventory item\'s status moves by PATCH of `status` to any listed value: Available, Reserved, Rented, Discontinued (and back)', OTHER_STATES, ['createSubscriptionProduct', 'createSubscriptionInventoryItem', 'updateSubscriptionInventoryItem', 'listSubscriptionInventoryItems']),
  pending('commerce.catalog.inventory-filter', 'The inventory list filters by `status` and `productId`, and takes $orderby, $top, $skip and $count', CATALOG, ['createSubscriptionProduct', 'createSubscriptionInventoryItem', 'listSubscriptionInventoryItems']),
  pending('commerce.catalog.plan-shared-with-checkout', 'A plan created through `/v1/SubscriptionPlan` is the same plan `/v1/plans` shows (amount as a number, timeUnit as interval, timeInterval as intervalCount)', CATALOG, ['createSubscriptionProduct', 'createSubscriptionPlan', 'retrievePlan', 'listPlans']),
  pending('commerce.catalog.checkout-plan-in-catalog', 'A plan created through `/v1/plans` shows in `/v1/SubscriptionPlan`, and archiving it there shows `Archived`', CATALOG, ['createProduct', 'createPlan', 'archivePlan', 'listSubscriptionPlans']),
  pending('commerce.catalog.product-shared-with-checkout', 'A product created through `/v1/SubscriptionProduct` is the one `/v1/products` shows', CATALOG, ['createSubscriptionProduct', 'retrieveProduct']),
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
  pending('commerce.other.subscription-plan-lowercase', '`POST /v1/subscriptionPlan` (as listed, lower-case) creates a plan', OTHER_OPS, ['createSubscriptionProduct', 'createSubscriptionPlan']),
  pending('commerce.other.subscriptions', '`GET /v1/subscription` lists subscriptions and `POST /v1/subscription/{id}/cancel` cancels one', OTHER_OPS, ['listCommerceSubscriptions', 'cancelCommerceSubscription']),
  pending('commerce.other.merchant', '`GET /v1/merchant`, `POST /v1/merchant` and `GET /v1/merchantLocation` answer', OTHER_OPS, ['getMerchant', 'createMerchant', 'listMerchantLocations']),
  pending('commerce.other.user-role-scope', '`GET /v1/user`, `POST /v1/role` and `GET /v1/scope` answer', OTHER_OPS, ['getCurrentUser', 'createRole', 'listScopes']),
];

export const commerceScenarios: Scenario[] = [...commerceInvoiceScenarios, ...fundsScenarios, ...invoiceStateScenarios, ...invoiceStates, ...commercePayments, ...payments, ...accounts, ...payoutScenarios, ...links, ...linkScenarios, ...catalog, ...platform, ...commerceDirectPayments, ...otherOperations];
