// The Commerce subscription list as an OData resource, declared once: the same subscriptions as
// the Checkout interface's `/v1/subscriptions`, with PascalCase statuses and the plan's
// `timeUnit`/`timeInterval` spelling.
import type { SubscriptionStatus } from '../../db/tables/subscriptions.js';
import { defineResource } from '../../odata/index.js';

/** Stored status → the PascalCase status of the Commerce wire and of Checkout's subscription events (and back, for `$filter`). */
export const COMMERCE_SUBSCRIPTION_STATUS = {
  active: 'Active',
  trialing: 'Trialing',
  past_due: 'PastDue',
  unpaid: 'Unpaid',
  paused: 'Paused',
  canceled: 'Canceled',
  pending: 'Pending',
} as const satisfies Record<SubscriptionStatus, string>;
const STORED = Object.fromEntries(Object.entries(COMMERCE_SUBSCRIPTION_STATUS).map(([stored, wire]) => [wire, stored]));

const at = (column: string, nullable = false) => ({ column, type: 'datetime' as const, nullable });

export const commerceSubscriptionResource = defineResource({
  table: 's',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    merchantId: { column: 'merchant_id', type: 'int' },
    clientId: { column: 'customer_id', type: 'int' },
    clientEmail: { column: 'client_email', type: 'string', nullable: true },
    planId: { column: 'plan_id', type: 'int' },
    planName: { column: 'plan_name', type: 'string' },
    productId: { column: 'product_id', type: 'int' },
    status: { column: 'status', type: { enum: Object.values(COMMERCE_SUBSCRIPTION_STATUS), toDb: (wire) => STORED[wire]! } },
    amount: { column: 'amount', type: 'decimal' },
    currency: { column: 'currency', type: 'string' },
    timeUnit: { column: 'interval', type: { enum: ['Day', 'Week', 'Month', 'Year'], toDb: (wire) => wire.toLowerCase() } },
    timeInterval: { column: 'interval_count', type: 'int' },
    startDate: at('start_date'),
    currentPeriodStart: at('current_period_start'),
    currentPeriodEnd: at('current_period_end'),
    trialEnd: at('trial_end', true),
    cancelAtPeriodEnd: { column: 'cancel_at_period_end', type: 'boolean' },
    cancelAt: at('cancel_at', true),
    canceledAt: at('canceled_at', true),
    pausedAt: at('paused_at', true),
    createdDateTime: at('created_at'),
  },
});
