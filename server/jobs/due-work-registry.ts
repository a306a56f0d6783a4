// The one registry of work that falls due with time. Each kind is declared once: what it does, when
// its next item falls due, and how often the job queue looks for it. pg-boss runs every kind on its
// schedule in real time (jobs/index.ts), and a merchant's sandbox clock runs them all, in this
// order, at each instant it stops at (domain/clocks/clock-advance.ts): expiry, lapse, settlement and wallet refunds
// first, then subscription billing (renewals, trial ends, dunning, scheduled cancellations) and
// invoices falling past due, then transfers falling due (completed or failed), then payouts (arrivals, then the day's payouts
// of what is available), then webhook attempts, so the events the others wrote are delivered in the same step.
import { expireDueSessions, nextSessionExpiry } from '../domain/checkout/session.service.js';
import { completeDueWalletRefunds, lapseDueHolds, settleDuePayments } from '../domain/checkout/payment-operations.js';
import { nextSubscriptionWork, runDueSubscriptions } from '../domain/billing/renewal.js';
import type { DueWork } from '../domain/clocks/due-work-kind.js';
import { markOverdueInvoices, nextInvoiceDue } from '../domain/invoices/invoice-billing.js';
import { expireDueInvoices, nextExpiringInvoice } from '../domain/invoices/invoice-expiry.js';
import { expireDueLinks, nextExpiringLink } from '../domain/links/link-expiry.js';
import { nextHoldLapse } from '../domain/payments/holds.js';
import { nextSettlement } from '../domain/payments/settlement.js';
import { nextWalletRefund } from '../domain/payments/wallet-payment.js';
import { completeDueArrivals, makeDuePayouts, nextPayoutWork } from '../domain/payouts/payouts.service.js';
import { completeDueTransfers, nextTransferWork } from '../domain/transfers/transfer-processing.js';
import { deliverDueWebhooks, nextDeliveryAttempt } from '../domain/webhooks/due-deliveries.js';
import type { DueScope } from '../shared/due-scope.js';
import { deliverySettings } from '../api/kit.js';
import type { Config } from '../config.js';

/** A kind of due work, with its queue and schedule on pg-boss. */
export interface ScheduledWork extends DueWork {
  /** Its key (`runNow` takes it). */
  id:
    | 'sessionExpiry'
    | 'holdLapse'
    | 'settlement'
    | 'walletRefunds'
    | 'subscriptions'
    | 'invoicesOverdue'
    | 'invoicesExpired'
    | 'paymentLinksExpired'
    | 'transfers'
    | 'payouts'
    | 'webhookSweep';
  queue: string;
  cron: string;
  /** What the log says when a run handled something. */
  done: string;
}

export interface DueWorkOptions {
  /**
   * Where the job queue runs webhook attempts: its delivery pipeline, which sends them concurrently
   * and queues each retry at its time. Without it (the sandbox clock), due attempts are made in
   * batches before the call returns.
   */
  sweepWebhooks?: (scope: DueScope) => Promise<number>;
}

/** The kinds that need nothing of the server's settings, in the order the sandbox clock runs them. */
const TIMED_WORK: readonly ScheduledWork[] = [
  {
    id: 'sessionExpiry',
    name: 'session expiry',
    queue: 'session-expiry',
    cron: '* * * * *',
    done: 'checkout sessions expired',
    run: (db, clock, scope) => expireDueSessions(db, clock, scope),
    next: nextSessionExpiry,
  },
  {
    id: 'holdLapse',
    name: 'hold lapse',
    queue: 'hold-lapse',
    cron: '*/5 * * * *',
    done: 'card holds lapsed',
    run: (db, clock, scope) => lapseDueHolds(db, clock, scope),
    next: nextHoldLapse,
  },
  {
    id: 'settlement',
    name: 'settlement',
    queue: 'settlement',
    cron: '7 * * * *',
    done: 'payments settled',
    run: (db, clock, scope) => settleDuePayments(db, clock, scope),
    next: nextSettlement,
  },
  {
    id: 'walletRefunds',
    name: 'wallet refunds',
    queue: 'wallet-refunds',
    cron: '* * * * *',
    done: 'wallet refunds completed',
    run: (db, clock, scope) => completeDueWalletRefunds(db, clock, scope),
    next: nextWalletRefund,
  },
  {
    id: 'subscriptions',
    name: 'subscription billing',
    queue: 'subscription-billing',
    cron: '* * * * *',
    done: 'subscriptions renewed, retried, converted or canceled',
    run: (db, clock, scope) => runDueSubscriptions(db, clock, scope),
    next: nextSubscriptionWork,
  },
  {
    id: 'invoicesOverdue',
    name: 'invoices past due',
    queue: 'invoices-overdue',
    cron: '* * * * *',
    done: 'invoices marked overdue',
    run: (db, clock, scope) => markOverdueInvoices(db, clock, scope),
    next: nextInvoiceDue,
  },
  {
    id: 'invoicesExpired',
    name: 'invoices past validTo',
    queue: 'invoices-expired',
    cron: '* * * * *',
    done: 'invoices expired',
    run: (db, clock, scope) => expireDueInvoices(db, clock, scope),
    next: nextExpiringInvoice,
  },
  {
    id: 'paymentLinksExpired',
    name: 'payment links past validTo',
    queue: 'payment-links-expired',
    cron: '* * * * *',
    done: 'payment links expired',
    run: (db, clock, scope) => expireDueLinks(db, clock, scope),
    next: nextExpiringLink,
  },
  {
    id: 'transfers',
    name: 'transfers falling due',
    queue: 'transfers-due',
    cron: '* * * * *',
    done: 'transfers completed or failed',
    run: (db, clock, scope) => completeDueTransfers(db, clock, scope),
    next: nextTransferWork,
  },
  {
    id: 'payouts',
    name: 'payouts',
    queue: 'payouts',
    cron: '*/5 * * * *',
    done: 'payouts arrived, failed or made',
    run: async (db, clock, scope) => (await completeDueArrivals(db, clock, scope)) + (await makeDuePayouts(db, clock, scope)),
    next: nextPayoutWork,
  },
];

/** Every kind of work that falls due, in the order the sandbox clock runs it at each instant: webhook attempts last. */
export function dueWork(deps: { config: Pick<Config, 'allowLoopbackWebhooks' | 'webhookTimeoutMs'> }, options: DueWorkOptions = {}): ScheduledWork[] {
  const settings = deliverySettings(deps);
  const sweep = options.sweepWebhooks;
  const webhookSweep: ScheduledWork = {
    id: 'webhookSweep',
    name: 'webhook attempts',
    queue: 'webhook-sweep',
    cron: '* * * * *',
    done: 'due webhook deliveries attempted',
    run: sweep ? (_db, _clock, scope) => sweep(scope) : (db, clock, scope) => deliverDueWebhooks(db, clock, settings, { scope }),
    next: nextDeliveryAttempt,
    selfContained: true, // deliveries and their attempts: no other kind reads them
    drains: !sweep, // deliverDueWebhooks fans out, then attempts batch after batch until nothing is due
    catchesUp: !sweep, // the sandbox clock's attempts are made at the times they fell due: retries make no stops
  };
  return [...TIMED_WORK, webhookSweep];
}
