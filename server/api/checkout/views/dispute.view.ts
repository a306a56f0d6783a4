import type { components } from '../../../../generated/checkout.js';
import type { DisputeRow, DisputeStatus } from '../../../domain/disputes/dispute.tables.js';
import { decimalToAmount } from '../../../shared/money.js';

type Dispute = components['schemas']['DisputeEventObject'];
type WireStatus = Dispute['status'];

const STATUS: Record<DisputeStatus, WireStatus> = { open: 'Open', under_review: 'UnderReview', won: 'Won', lost: 'Lost', accepted: 'Accepted' };
const FROM_WIRE = Object.fromEntries(Object.entries(STATUS).map(([domain, wire]) => [wire, domain])) as Record<WireStatus, DisputeStatus>;

/** A wire status (`UnderReview`) as the domain's (`under_review`). */
export const disputeStatusOf = <S extends WireStatus>(status: S): DisputeStatus => FROM_WIRE[status];

/**
 * The dispute object: what the reads answer and `data.object` of `dispute.*` events (one schema).
 * `previousStatus` once it has changed, `invoiceReopened` once it is closed.
 */
export function disputeView(d: DisputeRow): Dispute {
  return {
    object: 'dispute',
    id: d.id,
    paymentId: d.payment_id,
    amount: decimalToAmount(d.amount, d.currency),
    currency: d.currency,
    status: STATUS[d.status],
    ...(d.previous_status ? { previousStatus: STATUS[d.previous_status] } : {}),
    reason: d.reason as Dispute['reason'],
    evidenceDueBy: d.evidence_due_at ? d.evidence_due_at.toISOString() : null,
    ...(d.invoice_reopened === null ? {} : { invoiceReopened: d.invoice_reopened }),
    fee: decimalToAmount(d.fee, d.currency),
    invoiceId: d.invoice_id,
    closedAt: d.closed_at ? d.closed_at.toISOString() : null,
    isLive: d.livemode,
    createdAt: d.created_at.toISOString(),
  };
}
