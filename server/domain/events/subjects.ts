import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import type { DisputeRow } from '../../db/tables/disputes.js';
import type { InvoiceRow } from '../../db/tables/invoices.js';
import type { PaymentRow } from '../../db/tables/payments.js';
import type { PayoutEntryRow } from '../../db/tables/payouts.js';
import type { SubscriptionDetails, SubscriptionStatus } from '../../db/tables/subscriptions.js';
import type { EventType } from '../../shared/vocabulary.generated.js';

/** What is kept of the card a payment used, for its events. */
export interface CardSummary {
  brand: string;
  last4: string;
}

/** A checkout session as its events keep it: without its secrets (they never leave the sessions table). */
export type SessionSnapshot = Omit<CheckoutSessionRow, 'client_secret_hash' | 'client_secret' | 'notification_secret'>;

/** A session row without its secrets. */
export function sessionSnapshot(session: CheckoutSessionRow): SessionSnapshot {
  const { client_secret_hash: _hash, client_secret: _secret, notification_secret: _notification, ...snapshot } = session;
  return snapshot;
}

/**
 * What an event is about: the domain records as they were when it happened. Events store these,
 * not any interface's payload; each interface renders them when it delivers them.
 */
export type EventSubject =
  | { kind: 'checkout_session'; session: SessionSnapshot; payment: PaymentRow | null }
  | { kind: 'payment'; payment: PaymentRow; card: CardSummary | null; refund?: { amount: string } }
  | { kind: 'invoice'; invoice: InvoiceRow }
  | {
      kind: 'subscription';
      subscription: SubscriptionDetails;
      change: { reason: string | null; previousStatus?: SubscriptionStatus; previousPlanId?: number; proratedAmount?: string };
    }
  | { kind: 'dispute'; dispute: DisputeRow }
  | { kind: 'payout'; payout: PayoutEntryRow }
  | { kind: 'test'; id: string; eventType: string; live: boolean; created_at: Date };

/** An event written before events stored records (migration 0013): its payload, as it was written. */
export interface StoredPayload {
  kind: 'payload';
  payload: Record<string, unknown>;
}

/** An event as the outbox holds it. */
export interface EventRecord {
  id: string;
  merchant_id: number;
  livemode: boolean;
  type: EventType | (string & {});
  api_version: string;
  created_at: Date;
  subject: EventSubject | StoredPayload;
}
