// The Commerce subscription list as an OData resource, declared once: the same subscriptions as
// the Checkout interface's `/v1/subscriptions`, with PascalCase statuses and the plan's
// `timeUnit`/`timeInterval` spelling.
import { defineResource } from '../../../odata/index.js';
import { storedOf, SUBSCRIPTION_STATUS } from '../wire-values.js';

const at = (column: string, nullable = false) => ({ column, type: 'datetime' as const, nullable });

export const subscriptionResource = defineResource({
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
    status: { column: 'status', type: { enum: Object.values(SUBSCRIPTION_STATUS), toDb: (wire) => storedOf(SUBSCRIPTION_STATUS, wire) } },
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
