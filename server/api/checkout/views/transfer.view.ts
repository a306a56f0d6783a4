import type { components } from '../../../../generated/checkout.js';
import type { TransferRow } from '../../../domain/transfers/transfer.tables.js';
import { decimalToAmount } from '../../../shared/money.js';

type Transfer = components['schemas']['TransferEventObject'];

/** The transfer object: `data.object` of `transfer.*` events and what the transfer test helper answers. */
export function transferEventView(t: TransferRow): Transfer {
  const currency = t.currency.trim();
  const failed = t.status === 'Failed';
  return {
    object: 'transfer',
    id: t.id,
    referenceNumber: t.reference_number,
    transferAction: t.transfer_action,
    sourceAccountId: t.source_account_id,
    destinationAccountNumber: t.destination_account_number,
    institutionId: t.institution_id,
    amount: decimalToAmount(t.amount, currency),
    fee: decimalToAmount(t.fee, currency),
    currency,
    feePayer: t.fee_payer,
    // Till makes no `Pending` or `Cancelled` transfer: the event shows the three states it moves through.
    status: failed ? 'Failed' : t.status === 'Completed' ? 'Completed' : 'Processing',
    failureReason: failed ? t.failure_reason : null,
    completionDate: failed ? null : (t.completed_at ?? t.completes_at).toISOString(),
    isLive: t.livemode,
    createdAt: t.created_at.toISOString(),
  };
}
