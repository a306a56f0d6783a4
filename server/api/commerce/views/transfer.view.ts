// Transfers and transactions, as the Commerce interface writes them (money as numbers).
import type { components } from '../../../../generated/commerce.js';
import type { TransferRow } from '../../../domain/transfers/transfer.tables.js';
import type { TransactionRow } from '../../../domain/transfers/transfer-lists.js';
import { decimalToAmount } from '../../../shared/money.js';

type Schemas = components['schemas'];

export const transferView = (row: TransferRow): Schemas['Transfer'] => {
  const currency = row.currency.trim();
  return {
    id: row.id,
    referenceNumber: row.reference_number,
    transferAction: row.transfer_action,
    sourceAccountId: row.source_account_id,
    destinationAccountNumber: row.destination_account_number,
    amount: decimalToAmount(row.amount, currency),
    fee: decimalToAmount(row.fee, currency),
    currencyCode: currency,
    status: row.status,
    feePayer: row.fee_payer,
    description: row.description,
    createdDateTime: row.created_at.toISOString(),
    institutionId: row.institution_id,
    completionDateTime: row.status === 'Failed' ? null : (row.completed_at ?? row.completes_at).toISOString(),
    failureReason: row.status === 'Failed' ? row.failure_reason : null,
  };
};

/** What a booking is, in words. */
function describe(row: TransactionRow): string {
  const side = row.balance === 'pending' ? 'pending' : 'available';
  switch (row.entry_type) {
    case 'settlement':
      return row.balance === 'pending' ? 'Settlement: out of pending' : 'Settlement: into available';
    case 'transfer':
      if (row.amount.startsWith('-')) return 'Transfer sent';
      return row.own_transfer ? 'Transfer failed: returned' : 'Transfer received';
    case 'transfer_fee':
      return row.own_transfer && !row.amount.startsWith('-') ? 'Transfer fee returned' : 'Transfer fee';
    case 'account_payment':
      return 'Paid from the account';
    case 'account_refund':
      return 'Refund to the account';
    default:
      return `${row.type} (${side})`;
  }
}

export const transactionView = (row: TransactionRow): Schemas['Transaction'] => ({
  id: row.id,
  accountId: row.account_id,
  referenceNumber: row.reference_number,
  type: row.type as Schemas['TransactionType'],
  amount: decimalToAmount(row.amount, row.currency),
  currencyCode: row.currency,
  balanceAfter: decimalToAmount(row.balance_after, row.currency),
  description: describe(row),
  createdDateTime: new Date(row.created_at).toISOString(),
});
