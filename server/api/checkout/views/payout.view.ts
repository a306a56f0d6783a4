import type { components } from '../../../../generated/checkout.js';
import type { PayoutEntryRow } from '../../../domain/payouts/payout.tables.js';
import { decimalToAmount } from '../../../shared/money.js';

type Payout = components['schemas']['PayoutEventObject'];

/** The payout object: `data.object` of `payout.*` events and what the payout test helper answers. */
export function payoutView(p: PayoutEntryRow): Payout {
  const failed = p.status === 'failed';
  return {
    object: 'payout',
    id: p.id,
    amount: decimalToAmount(p.amount, p.currency),
    currency: p.currency,
    status: failed ? 'Failed' : 'Completed',
    destination: { type: p.destination_type, last4: p.destination_last4 },
    failureReason: failed ? p.failure_reason : null,
    arrivalDate: failed ? null : (p.completed_at ?? p.arrival_at).toISOString(),
    isLive: p.livemode,
    createdAt: p.created_at.toISOString(),
  };
}
