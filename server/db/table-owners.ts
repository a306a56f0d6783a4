// Each table has one owning module (docs: DESIGN, "Each table has one owning module"): only the
// owner's files write it, and another module reads it only through what the owner exports — a
// function of its repository, or a query fragment that composes into the caller's statement (a
// subquery to join, a condition), never an extra round trip. The owner is a folder under server/:
// a domain module, or http/ for the request machinery's own tables.
//
// The map lives beside the schema: `satisfies` below fails to compile when a table is added to
// `Database` without an owner here, and db/ names the modules without importing any of them.
// test/platform/table-ownership.unit.test.ts reads every statement of server/ and holds it to
// this map; the edge (api/, pages/, hub/, jobs/) owns no table and touches none.
import type { Database } from './schema.js';

export const TABLE_OWNERS = {
  // L1 records
  merchants: 'domain/merchants',
  api_keys: 'domain/merchants',
  dashboard_sessions: 'domain/merchants',
  merchant_locations: 'domain/merchants',
  users: 'domain/merchants',
  roles: 'domain/merchants',
  customers: 'domain/customers',
  products: 'domain/catalog',
  plans: 'domain/catalog',
  subscription_inventory_items: 'domain/catalog',
  ledger_entries: 'domain/ledger',
  events: 'domain/events',
  messages: 'domain/messages',
  message_attachments: 'domain/messages',
  sandbox_clocks: 'domain/clocks',
  request_logs: 'domain/request-logs',
  audit_entries: 'domain/audit',
  // L2 money
  payments: 'domain/payments',
  payment_methods: 'domain/payments',
  refunds: 'domain/payments',
  three_ds_challenges: 'domain/payments',
  card_setups: 'domain/payments',
  invoices: 'domain/invoices',
  payout_batches: 'domain/payouts',
  payout_entries: 'domain/payouts',
  payout_test_failures: 'domain/payouts',
  wallet_accounts: 'domain/accounts',
  // L3 flows
  checkout_sessions: 'domain/checkout',
  card_verifications: 'domain/checkout',
  saved_card_otp_state: 'domain/checkout',
  src_tokens: 'domain/checkout',
  subscriptions: 'domain/billing',
  subscription_items: 'domain/billing',
  portal_sessions: 'domain/billing',
  usage_records: 'domain/billing',
  payment_links: 'domain/links',
  payment_link_invoices: 'domain/links',
  payment_link_verifications: 'domain/links',
  webhook_configurations: 'domain/webhooks',
  webhook_deliveries: 'domain/webhooks',
  webhook_delivery_attempts: 'domain/webhooks',
  disputes: 'domain/disputes',
  transfers: 'domain/transfers',
  funding_sources: 'domain/funding-sources',
  // The request machinery (edge): replayed answers and rate-limit windows.
  idempotency_keys: 'http',
  rate_limits: 'http',
} as const satisfies Record<keyof Database, string>;

/** A table's owning folder under server/. */
export type TableOwner = (typeof TABLE_OWNERS)[keyof typeof TABLE_OWNERS];
