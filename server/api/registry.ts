import { checkoutSessionHandlers } from './checkout/checkout-sessions.js';
import { clientTokenHandlers } from './checkout/client-token.js';
import { disputeHandlers } from './checkout/disputes.js';
import { eventHandlers } from './checkout/events.js';
import { requestLogHandlers } from './checkout/request-logs.js';
import { auditEntryHandlers } from './checkout/audit-entries.js';
import { holdHandlers } from './checkout/holds.js';
import { invoiceHandlers } from './checkout/invoices.js';
import { refundHandlers } from './checkout/refunds.js';
import { savedCardHandlers } from './checkout/saved-cards.js';
import { srcHandlers } from './checkout/src.js';
import { testHelperHandlers } from './checkout/test-helpers.js';
import { walletHandlers } from './checkout/checkout-session-qr.js';
import { customerHandlers } from './checkout/customers.js';
import { planHandlers } from './checkout/plans.js';
import { portalSessionHandlers } from './checkout/portal-sessions.js';
import { productHandlers } from './checkout/products.js';
import { subscriptionHandlers } from './checkout/subscriptions.js';
import { webhookConfigurationHandlers } from './checkout/webhook-configurations.js';
import { paymentHandlers } from './commerce/payments.js';
import { commerceInvoiceHandlers } from './commerce/invoices.js';
import { payoutsDashboardHandlers } from './commerce/payouts-dashboard.js';
import { accountHandlers } from './commerce/accounts.js';
import { transferHandlers } from './commerce/transfers.js';
import { transfersDashboardHandlers } from './commerce/dashboards.js';
import { fundingSourceHandlers } from './commerce/funding-sources.js';
import { catalogHandlers } from './commerce/catalog.js';
import { inventoryHandlers } from './commerce/inventory.js';
import { commerceSubscriptionHandlers } from './commerce/subscriptions.js';
import { merchantHandlers } from './commerce/merchants.js';
import { identityHandlers } from './commerce/identity.js';
import { auditLogHandlers } from './commerce/audit-log.js';
import { paymentLinkHandlers } from './commerce/payment-links.js';
import { paymentLinkPublicHandlers } from './commerce/payment-link-public.js';
import { commerceRequestLogHandlers } from './commerce/request-logs.js';
import type { CheckoutHandlers, CommerceHandlers } from './types.js';

/** Every implemented operation of the Checkout & Billing interface. */
export const checkoutHandlers: CheckoutHandlers = {
  ...productHandlers,
  ...planHandlers,
  ...customerHandlers,
  ...clientTokenHandlers,
  ...checkoutSessionHandlers,
  ...holdHandlers,
  ...refundHandlers,
  ...invoiceHandlers,
  ...testHelperHandlers,
  ...subscriptionHandlers,
  ...walletHandlers,
  ...webhookConfigurationHandlers,
  ...savedCardHandlers,
  ...srcHandlers,
  ...disputeHandlers,
  ...portalSessionHandlers,
  ...eventHandlers,
  ...requestLogHandlers,
  ...auditEntryHandlers,
};

/** Every implemented operation of the Commerce interface. */
export const commerceHandlers: CommerceHandlers = {
  ...paymentHandlers,
  ...commerceInvoiceHandlers,
  ...payoutsDashboardHandlers,
  ...accountHandlers,
  ...transferHandlers,
  ...transfersDashboardHandlers,
  ...fundingSourceHandlers,
  ...catalogHandlers,
  ...inventoryHandlers,
  ...commerceSubscriptionHandlers,
  ...merchantHandlers,
  ...identityHandlers,
  ...auditLogHandlers,
  ...paymentLinkHandlers,
  ...paymentLinkPublicHandlers,
  ...commerceRequestLogHandlers,
};

/** operationIds with a handler, sorted; what `npm run operations` prints and the conformance suite reads. */
export function implementedOperations(): string[] {
  return [...Object.keys(checkoutHandlers), ...Object.keys(commerceHandlers)].sort();
}
