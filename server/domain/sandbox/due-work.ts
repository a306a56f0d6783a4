import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { lapseDueHolds, nextHoldLapse } from '../payments/hold.service.js';
import { nextSettlement, settleDuePayments } from '../payments/refund.service.js';
import { completeDueWalletRefunds, nextWalletRefund } from '../payments/wallet.service.js';
import { expireDueSessions, nextSessionExpiry } from '../sessions/session.service.js';
import { type DeliverySettings, deliverDueWebhooks, nextDeliveryAttempt } from '../webhooks/delivery.service.js';
import type { DueScope } from './scope.js';

/** One kind of work that falls due with time. */
export interface DueWork {
  name: string;
  /** Does what is due by the scope's clock (`clock` is the base clock); returns how many items it handled. */
  run(db: Kysely<Database>, clock: Clock, scope: DueScope): Promise<number>;
  /** When the scope's next item falls due, strictly after `after`; null when nothing waits. */
  next(db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null>;
}

/**
 * Everything that falls due, in the order the sandbox clock runs it at each instant: session
 * expiry, hold lapse, settlement, wallet refunds, then webhook attempts (so the events the others
 * wrote are delivered in the same step). Renewals, dunning and past-due invoices join here when
 * they are built.
 */
export function dueWork(settings: DeliverySettings): DueWork[] {
  return [
    { name: 'session expiry', run: (db, clock, scope) => expireDueSessions(db, clock, scope), next: nextSessionExpiry },
    { name: 'hold lapse', run: (db, clock, scope) => lapseDueHolds(db, clock, scope), next: nextHoldLapse },
    { name: 'settlement', run: (db, clock, scope) => settleDuePayments(db, clock, scope), next: nextSettlement },
    { name: 'wallet refunds', run: (db, clock, scope) => completeDueWalletRefunds(db, clock, scope), next: nextWalletRefund },
    { name: 'webhook attempts', run: (db, clock, scope) => deliverDueWebhooks(db, clock, settings, { scope }), next: nextDeliveryAttempt },
  ];
}
