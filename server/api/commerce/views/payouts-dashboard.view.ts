import type { components } from '../../../../generated/commerce.js';
import type { PayoutBatchStatus, PayoutBatchType } from '../../../domain/payouts/payout.tables.js';
import type { PayoutsDashboard } from '../../../domain/payouts/payouts-dashboard.js';
import { decimalToAmount } from '../../../shared/money.js';

type Schemas = components['schemas'];

const STATUS: Record<PayoutBatchStatus, Schemas['PayoutBatchStatus']> = {
  pending: 'Pending',
  processing: 'Processing',
  completed: 'Completed',
  partially_completed: 'PartiallyCompleted',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
const BATCH_TYPE: Record<PayoutBatchType, Schemas['PayoutBatchType']> = { single: 'Single', bulk: 'Bulk', scheduled: 'Scheduled' };

/** The payouts dashboard in the Commerce interface's words: money as numbers in the currency's minor units. */
export function payoutsDashboardView(d: PayoutsDashboard): Schemas['PayoutsDashboard'] {
  const amount = (value: string) => decimalToAmount(value, d.currency);
  const s = d.summary;
  return {
    summary: {
      totalBatches: s.total_batches,
      totalAmount: amount(s.total_amount),
      totalDisbursed: amount(s.total_disbursed),
      pendingAmount: amount(s.pending_amount),
      completionRate: Number(s.completion_rate),
      totalEntries: s.total_entries,
      totalSucceeded: s.total_succeeded,
      totalFailed: s.total_failed,
    },
    statusBreakdown: d.byStatus.map((r) => ({ status: STATUS[r.status], count: r.count, totalAmount: amount(r.total_amount) })),
    timeSeries: d.timeSeries.map((r) => ({
      date: r.bucket,
      batchCount: r.batch_count,
      entryCount: r.entry_count,
      totalAmount: amount(r.total_amount),
      totalDisbursed: amount(r.total_disbursed),
      totalFailedAmount: amount(r.total_failed_amount),
    })),
    transferTypeSummary: d.byTransferType.map((r) => ({
      transferType: r.transfer_type as Schemas['TransferAction'],
      count: r.count,
      totalAmount: amount(r.total_amount),
      totalFees: amount(r.total_fees),
    })),
    batchTypeSummary: d.byBatchType.map((r) => ({
      batchType: BATCH_TYPE[r.batch_type],
      batchCount: r.batch_count,
      entryCount: r.entry_count,
      totalAmount: amount(r.total_amount),
    })),
  };
}
