import type { Migration } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.js';
import * as checkoutSessions from './2026_11_22_0002_checkout_sessions.js';
import * as payments from './2026_11_22_0003_payments.js';
import * as refunds from './2026_11_22_0004_refunds.js';
import * as cardsOnFile from './2026_11_23_0005_cards_on_file.js';
import * as walletQr from './2026_11_23_0006_wallet_qr.js';
import * as savedCardsSrc from './2026_11_23_0007_saved_cards_src.js';
import * as threeDs from './2026_11_23_0008_three_ds.js';
import * as subscriptions from './2026_11_23_0009_subscriptions.js';
import * as merchantInvoices from './2026_11_23_0010_merchant_invoices.js';
import * as webhooks from './2026_11_23_0011_webhooks.js';
import * as sandboxClocks from './2026_11_23_0012_sandbox_clocks.js';
import * as balancedLedger from './2026_11_24_0013_balanced_ledger.js';
import * as invoiceNotify from './2026_11_25_0015_invoice_notify.js';
import * as hostedPages from './2026_11_25_0016_hosted_pages.js';
import * as messageDelivery from './2026_11_25_0017_message_delivery.js';
import * as idempotencyCommitted from './2026_11_25_0018_idempotency_committed.js';
import * as sandboxClockNotify from './2026_11_25_0019_sandbox_clock_notify.js';
import * as billingLifecycle from './2026_11_25_0020_billing_lifecycle.js';
import * as messageAttachments from './2026_11_25_0021_message_attachments.js';
import * as disputes from './2026_11_25_0022_disputes.js';
import * as portalSessions from './2026_11_25_0023_portal_sessions.js';
import * as eventNotify from './2026_11_25_0024_event_notify.js';
import * as sandboxMerchants from './2026_11_25_0025_sandbox_merchants.js';
import * as commerceInvoices from './2026_11_25_0026_commerce_invoices.js';
import * as commerceInvoicePayments from './2026_11_25_0027_commerce_invoice_payments.js';
import * as funds from './2026_11_25_0028_funds.js';
import * as payouts from './2026_11_25_0029_payouts.js';
import * as accountBalancePayments from './2026_11_26_0030_account_balance_payments.js';
import * as invoiceCountIndex from './2026_11_26_0031_invoice_count_index.js';
import * as subscriptionInventory from './2026_11_26_0032_subscription_inventory.js';
import * as identity from './2026_11_26_0033_identity.js';
import * as paymentLinks from './2026_11_26_0034_payment_links.js';
import * as customerCardsPerMode from './2026_11_27_0035_customer_cards_per_mode.js';
import * as commercePaymentOutcomes from './2026_11_27_0036_commerce_payment_outcomes.js';
import * as balancePaymentsAndRefunds from './2026_11_27_0037_balance_payments_and_refunds.js';
import * as invoicePublicCodes from './2026_11_27_0038_invoice_public_codes.js';
import * as linkDeletion from './2026_11_27_0039_link_deletion.js';
import * as meteredUsage from './2026_11_27_0040_metered_usage.js';
import * as transferProcessing from './2026_11_27_0041_transfer_processing.js';
import * as merchantLocations from './2026_11_27_0043_merchant_locations.js';
import * as webhookAttemptHeaders from './2026_11_27_0044_webhook_attempt_headers.js';
import * as traceContext from './2026_11_27_0045_trace_context.js';
import * as requestLogs from './2026_11_27_0046_request_logs.js';
import * as auditOperator from './2026_11_27_0052_audit_operator.js';
import * as invoiceInsertedPaidNotify from './2026_11_28_0053_invoice_inserted_paid_notify.js';
import * as auditEntries from './2026_11_27_0047_audit_entries.js';
import * as dashboardSessions from './2026_11_27_0048_dashboard_sessions.js';
import * as dashboardIndexes from './2026_11_27_0049_dashboard_indexes.js';
import * as requestLogTextBodies from './2026_11_27_0051_request_log_text_bodies.js';

/**
 * Every migration, in order. Add new ones at the end with a later timestamp; never edit or
 * remove one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_checkout_sessions': checkoutSessions,
  '2026_11_22_0003_payments': payments,
  '2026_11_22_0004_refunds': refunds,
  '2026_11_23_0005_cards_on_file': cardsOnFile,
  '2026_11_23_0006_wallet_qr': walletQr,
  '2026_11_23_0007_saved_cards_src': savedCardsSrc,
  '2026_11_23_0008_three_ds': threeDs,
  '2026_11_23_0009_subscriptions': subscriptions,
  '2026_11_23_0010_merchant_invoices': merchantInvoices,
  '2026_11_23_0011_webhooks': webhooks,
  '2026_11_23_0012_sandbox_clocks': sandboxClocks,
  '2026_11_24_0013_balanced_ledger': balancedLedger,
  '2026_11_25_0015_invoice_notify': invoiceNotify,
  '2026_11_25_0016_hosted_pages': hostedPages,
  '2026_11_25_0017_message_delivery': messageDelivery,
  '2026_11_25_0018_idempotency_committed': idempotencyCommitted,
  '2026_11_25_0019_sandbox_clock_notify': sandboxClockNotify,
  '2026_11_25_0020_billing_lifecycle': billingLifecycle,
  '2026_11_25_0021_message_attachments': messageAttachments,
  '2026_11_25_0022_disputes': disputes,
  '2026_11_25_0023_portal_sessions': portalSessions,
  '2026_11_25_0024_event_notify': eventNotify,
  '2026_11_25_0025_sandbox_merchants': sandboxMerchants,
  '2026_11_25_0026_commerce_invoices': commerceInvoices,
  '2026_11_25_0027_commerce_invoice_payments': commerceInvoicePayments,
  '2026_11_25_0028_funds': funds,
  '2026_11_25_0029_payouts': payouts,
  '2026_11_26_0030_account_balance_payments': accountBalancePayments,
  '2026_11_26_0031_invoice_count_index': invoiceCountIndex,
  '2026_11_26_0032_subscription_inventory': subscriptionInventory,
  '2026_11_26_0033_identity': identity,
  '2026_11_26_0034_payment_links': paymentLinks,
  '2026_11_27_0035_customer_cards_per_mode': customerCardsPerMode,
  '2026_11_27_0036_commerce_payment_outcomes': commercePaymentOutcomes,
  '2026_11_27_0037_balance_payments_and_refunds': balancePaymentsAndRefunds,
  '2026_11_27_0038_invoice_public_codes': invoicePublicCodes,
  '2026_11_27_0039_link_deletion': linkDeletion,
  '2026_11_27_0040_metered_usage': meteredUsage,
  '2026_11_27_0041_transfer_processing': transferProcessing,
  '2026_11_27_0043_merchant_locations': merchantLocations,
  '2026_11_27_0044_webhook_attempt_headers': webhookAttemptHeaders,
  '2026_11_27_0045_trace_context': traceContext,
  '2026_11_27_0046_request_logs': requestLogs,
  '2026_11_27_0047_audit_entries': auditEntries,
  '2026_11_27_0048_dashboard_sessions': dashboardSessions,
  '2026_11_27_0049_dashboard_indexes': dashboardIndexes,
  '2026_11_27_0051_request_log_text_bodies': requestLogTextBodies,
  '2026_11_27_0052_audit_operator': auditOperator,
  '2026_11_28_0053_invoice_inserted_paid_notify': invoiceInsertedPaidNotify,
};
