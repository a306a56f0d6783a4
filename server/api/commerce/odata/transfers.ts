// The OData lists of transfers (`GatewayTransferDto`) and transactions, declared once: wire name,
// column, type, and what a caller may do with each field.
import { defineResource } from '../../../odata/index.js';

export const TRANSFER_ACTIONS = [
  'RequestQrCode',
  'RequestPaymentLink',
  'RequestTransfer',
  'ExecuteTransfer',
  'ATMCashPickUp',
  'ATMCashOut',
  'CashIn',
  'CashOut',
  'CBDCTransfer',
  'CBDCTransferReceived',
  'BankTransfer',
  'BankWithdrawal',
] as const;

export const transferResource = defineResource({
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    referenceNumber: { column: 'reference_number', type: 'string' },
    transferAction: { column: 'transfer_action', type: { enum: TRANSFER_ACTIONS } },
    sourceAccountId: { column: 'source_account_id', type: 'int' },
    destinationAccountNumber: { column: 'destination_account_number', type: 'string' },
    amount: { column: 'amount', type: 'decimal' },
    fee: { column: 'fee', type: 'decimal' },
    currencyCode: { column: 'currency', type: 'string' },
    status: { column: 'status', type: { enum: ['Completed', 'Processing', 'Failed', 'Pending', 'Cancelled'] } },
    feePayer: { column: 'fee_payer', type: { enum: ['Sender', 'Receiver', 'Both'] } },
    institutionId: { column: 'institution_id', type: 'int' },
    description: { column: 'description', type: 'string', nullable: true, sort: false },
    createdDateTime: { column: 'created_at', type: 'datetime' },
  },
});

export const transactionResource = defineResource({
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    accountId: { column: 'account_id', type: 'int' },
    referenceNumber: { column: 'reference_number', type: 'string' },
    type: { column: 'type', type: { enum: ['Payment', 'Fee', 'Refund', 'Settlement', 'Transfer', 'Payout', 'Dispute'] } },
    amount: { column: 'amount', type: 'decimal' },
    currencyCode: { column: 'currency', type: 'string' },
    createdDateTime: { column: 'created_at', type: 'datetime' },
  },
});
