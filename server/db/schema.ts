import type { ProductsTable, PlansTable } from './tables/catalog.js';
import type { CustomersTable } from './tables/customers.js';
import type { ApiKeysTable, MerchantsTable } from './tables/merchants.js';
import type { EventsTable } from './tables/events.js';
import type { WebhookConfigurationsTable, WebhookDeliveriesTable, WebhookDeliveryAttemptsTable } from './tables/webhooks.js';
import type { CheckoutSessionsTable } from './tables/checkout-sessions.js';
import type { ThreeDsChallengesTable } from './tables/three-d-secure.js';
import type { SubscriptionItemsTable, SubscriptionsTable } from './tables/subscriptions.js';
import type { SandboxClocksTable } from './tables/sandbox-clocks.js';
import type { MessagesTable } from './tables/messages.js';
import type { CardVerificationsTable, SavedCardOtpStateTable, SrcTokensTable } from './tables/saved-cards.js';
import type { PaymentMethodsTable, PaymentsTable, RefundsTable } from './tables/payments.js';
import type { InvoicesTable } from './tables/invoices.js';
import type { LedgerEntriesTable } from './tables/ledger.js';
import type { IdempotencyKeysTable, RateLimitsTable } from './tables/platform.js';
import type { CardSetupsTable, PortalSessionsTable } from './tables/portal.js';

/** Every table, for Kysely. */
export interface Database {
  merchants: MerchantsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  products: ProductsTable;
  plans: PlansTable;
  customers: CustomersTable;
  checkout_sessions: CheckoutSessionsTable;
  events: EventsTable;
  payment_methods: PaymentMethodsTable;
  payments: PaymentsTable;
  invoices: InvoicesTable;
  ledger_entries: LedgerEntriesTable;
  refunds: RefundsTable;
  three_ds_challenges: ThreeDsChallengesTable;
  subscriptions: SubscriptionsTable;
  subscription_items: SubscriptionItemsTable;
  webhook_configurations: WebhookConfigurationsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  messages: MessagesTable;
  card_verifications: CardVerificationsTable;
  saved_card_otp_state: SavedCardOtpStateTable;
  src_tokens: SrcTokensTable;
  sandbox_clocks: SandboxClocksTable;
  portal_sessions: PortalSessionsTable;
  card_setups: CardSetupsTable;
}
