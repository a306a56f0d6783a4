// The transfers dashboard, as the Commerce interface writes it (money as numbers).
import type { components } from '../../../../generated/commerce.js';
import type { TransfersDashboard } from '../../../domain/transfers/transfer-dashboard.js';
import { decimalToAmount } from '../../../shared/money.js';

type Schemas = components['schemas'];

export function transfersDashboardView(d: TransfersDashboard): Schemas['TransfersDashboard'] {
  const money = (value: string) => decimalToAmount(value, d.currency);
  return {
    summary: {
      totalTransfers: d.summary.count,
      totalSourceAmount: money(d.summary.source),
      totalPayoutAmount: money(d.summary.payout),
      totalFees: money(d.summary.fees),
      averageAmount: money(d.summary.average),
      completionRate: Number(d.summary.completionRate),
    },
    typeBreakdown: d.byAction.map((g) => ({
      requestType: g.key as Schemas['TransferAction'],
      count: g.count,
      totalAmount: money(g.amount),
      totalFees: money(g.fees),
    })),
    statusBreakdown: d.byStatus.map((g) => ({ status: g.key as Schemas['TransferStatus'], count: g.count, totalAmount: money(g.amount) })),
    timeSeries: d.series.map((p) => ({
      date: p.date,
      count: p.count,
      totalSourceAmount: money(p.source),
      totalPayoutAmount: money(p.payout),
      totalFees: money(p.fees),
    })),
    feePayerBreakdown: d.byFeePayer.map((g) => ({ feePayer: g.key as Schemas['TransferFeePayer'], count: g.count, totalFeeAmount: money(g.fees) })),
  };
}
