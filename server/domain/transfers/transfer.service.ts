// Transfers out of a wallet account: to another Till account (`ExecuteTransfer`) or out of Till
// (a bank, a CBDC wallet). One transaction: the transfer row, `Processing`, its ledger posting out
// of the source account and `transfer.processing`, after the source balance is locked and checked,
// so two transfers at once cannot together overdraw it. It completes or fails later, on the clock
// (transfer-processing.ts).
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { FeePayer, TransferAction, TransferRow } from './transfer.tables.js';
import type { WalletAccountRow } from '../accounts/account.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newReference } from '../../shared/ids.js';
import { minorUnits } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { findDestination } from '../accounts/account.repository.js';
import { balanceOf, getAccount } from '../accounts/account.service.js';
import { writeEvent } from '../events/event.service.js';
import { ensureAvailable, InsufficientBalanceError, post } from '../ledger/ledger.service.js';
import { transferFee, withheldOf } from './transfer-fee.js';
import { completesAt, institutionOf } from './transfer-timing.js';
import { insertTransfer } from './transfer.repository.js';

/** A transfer to make. `amount` is exact decimal text in the currency's minor unit. */
export interface TransferRequest {
  sourceAccountId: number;
  destinationAccountNumber: string;
  amount: string;
  currency: string;
  action: TransferAction;
  feePayer: FeePayer;
  description: string | null;
}

/** The destination account of an `ExecuteTransfer`: another Till account in the same mode and currency. */
async function tillDestination(trx: Trx, source: WalletAccountRow, number: string): Promise<WalletAccountRow> {
  const destination = await findDestination(trx, source.livemode, number);
  const param = 'destinationAccountNumber';
  if (!destination) throw new AppError('validation_error', { param, message: `No Till account has the number ${number} in this mode.` });
  if (destination.id === source.id) throw new AppError('validation_error', { param, message: 'The destination is the source account itself.' });
  if (destination.currency !== source.currency) {
    throw new AppError('validation_error', {
      param,
      message: `Account ${number} holds ${destination.currency.trim()}; the transfer is in ${source.currency.trim()}.`,
    });
  }
  return destination;
}

/** Locks the source balance and checks it covers `needed`; otherwise 409 `invalid_state`, nothing written. */
async function ensureCovered(trx: Trx, tenant: Tenant, source: WalletAccountRow, needed: Decimal): Promise<void> {
  const currency = source.currency.trim();
  const units = minorUnits(currency);
  const short = (available: Decimal) =>
    new AppError('invalid_state', {
      param: 'amount',
      message: `Account ${source.id} has ${available.toFixed(units)} ${currency} available; the transfer needs ${needed.toFixed(units)} ${currency}.`,
    });
  try {
    await ensureAvailable(trx, tenant, currency, needed);
  } catch (e) {
    if (e instanceof InsufficientBalanceError) throw short(e.available);
    throw e;
  }
  // Pending money may be negative (refunds before settlement): what can leave is never above the current amount.
  const available = new Decimal((await balanceOf(trx, tenant, currency)).available);
  if (available.lessThan(needed)) throw short(available);
}

/** Makes a transfer: checked, booked out of the source account, `Processing` until it falls due (`transfer.processing`). */
export async function createTransfer(db: Kysely<Database>, clock: Clock, tenant: Tenant, request: TransferRequest): Promise<TransferRow> {
  return db.transaction().execute(async (trx) => {
    const source = await getAccount(trx, tenant, request.sourceAccountId, 'sourceAccountId');
    if (source.status !== 'Active')
      throw new AppError('invalid_state', {
        param: 'sourceAccountId',
        message: `Account ${source.id} is ${source.status}: only an Active account can send money.`,
      });
    const currency = source.currency.trim();
    if (request.currency !== currency)
      throw new AppError('validation_error', { param: 'currencyCode', message: `currencyCode must be the source account's currency, ${currency}.` });
    const destination = request.action === 'ExecuteTransfer' ? await tillDestination(trx, source, request.destinationAccountNumber) : null;
    const fee = transferFee(request.amount, currency, request.feePayer);
    await ensureCovered(trx, tenant, source, new Decimal(request.amount).plus(fee.senderFee));
    const now = clock.now();
    const transfer = await insertTransfer(trx, {
      merchant_id: tenant.merchantId,
      livemode: tenant.livemode,
      reference_number: newReference('TRF'),
      transfer_action: request.action,
      source_account_id: source.id,
      destination_account_number: destination?.account_number ?? request.destinationAccountNumber,
      destination_account_id: destination?.id ?? null,
      amount: request.amount,
      fee: fee.fee,
      sender_fee: fee.senderFee,
      receiver_fee: fee.receiverFee,
      fee_payer: request.feePayer,
      currency,
      status: 'Processing',
      description: request.description,
      created_at: now,
      institution_id: institutionOf(request.action),
      completes_at: completesAt(request.action, now),
    });
    const context = { tenant, paymentId: null, transferId: transfer.id, currency, at: now };
    await post(trx, context, [{ type: 'transfer_out', amount: request.amount, senderFee: fee.senderFee, withheld: withheldOf(transfer) }]);
    await writeEvent(trx, clock, { tenant, type: 'transfer.processing', subject: { kind: 'transfer', transfer } });
    return transfer;
  });
}
