import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from '../../db/columns.js';
import type { PlanInterval } from '../catalog/catalog.tables.js';

/** Status in the REST spelling (webhooks show PascalCase). */
export type SubscriptionStatus = 'active' | 'trialing' | 'past_due' | 'unpaid' | 'paused' | 'canceled' | 'pending';

/**
 * A customer's subscription on a plan, in one mode, started by one checkout session. The
 * amount, currency and interval are the plan's when it started (a plan's price never changes).
 */
export interface SubscriptionsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  customer_id: number;
  plan_id: number;
  /** The checkout session that started it. */
  /** The checkout session that started it; null for one started from a subscription payment link. */
  session_id: string | null;
  status: SubscriptionStatus;
  amount: Numeric;
  currency: string;
  interval: PlanInterval;
  interval_count: number;
  start_date: Timestamp;
  current_period_start: Timestamp;
  current_period_end: Timestamp;
  trial_end: Timestamp | null;
  cancel_at_period_end: Generated<boolean>;
  cancel_at: Timestamp | null;
  canceled_at: Timestamp | null;
  paused_at: Timestamp | null;
  /** The card on file that renewals are charged to; null until there is one (free trials). */
  payment_method_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The instant its periods are counted from: the first paid period's start, a trial's end, or a resume. */
  billing_anchor: Timestamp;
  /** When its next due work falls due (renewal, trial end, scheduled cancellation, dunning retry); kept by the repository. */
  next_due_at: Generated<Date | null>;
  /** Dunning retries made on the open invoice. */
  dunning_attempts: Generated<number>;
  /** When the next dunning retry charges the open invoice (past due only). */
  next_retry_at: Generated<Date | null>;
  /** The invoice being collected while past due or unpaid. */
  open_invoice_id: Generated<number | null>;
  /** Credit from downgrades, taken off its next invoices. */
  credit_balance: ColumnType<string, string | undefined, string>;
}
export type SubscriptionRow = Selectable<SubscriptionsTable>;

/** One plan on a subscription. */
export interface SubscriptionItemsTable {
  id: Generated<number>;
  subscription_id: number;
  merchant_id: number;
  livemode: boolean;
  plan_id: number;
  quantity: number;
  amount: Numeric;
  currency: string;
  created_at: Timestamp;
}
export type SubscriptionItemRow = Selectable<SubscriptionItemsTable>;

/** A subscription with what its answers and events show of its customer, its plan and its items (a read of three tables). */
export interface SubscriptionDetails extends SubscriptionRow {
  client_email: string | null;
  plan_name: string;
  /** Its items, each with its plan's name and whether it is metered (its plan bills by usage). */
  items: (SubscriptionItemRow & { plan_name: string; is_metered: boolean })[];
}

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    subscriptions: SubscriptionsTable;
    subscription_items: SubscriptionItemsTable;
  }
}

// What this module's events keep (the events module's list of subjects, by declaration merging).
declare module '../events/subjects.js' {
  interface EventSubjects {
    subscription: {
      subscription: SubscriptionDetails;
      change: { reason: string | null; previousStatus?: SubscriptionStatus; previousPlanId?: number; proratedAmount?: string };
    };
  }
}
