// The bank transfer, the one way of paying that only the Commerce interface offers: a payment
// waiting in its session for the payer's transfer to the sandbox bank, like a wallet QR code
// waits for a scan.
import { Decimal } from 'decimal.js';
import type { Trx } from '../../db/database.js';
import type { CheckoutSessionRow } from '../checkout/session.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { insertPayment } from '../payments/payment.repository.js';
import { paymentBase } from '../payments/payment.service.js';
import { awaitPayer } from '../checkout/session-payment.js';

/** How long a bank transfer may take to arrive. */
export const BANK_TRANSFER_DAYS = 7;

/** Where and how the payer transfers the money (the sandbox bank's account of the merchant). */
export interface BankTransferInstructions {
  bankName: string;
  accountName: string;
  iban: string;
  bic: string;
  reference: string;
  amount: string;
  currency: string;
  expiresAt: Date;
}

/** A valid IBAN of the sandbox bank for the merchant (ISO 13616 check digits). */
function sandboxIban(merchantId: number): string {
  const bban = `TILL${merchantId.toString().padStart(14, '0')}`;
  const digits = `${bban}GB00`.replace(/[A-Z]/g, (c) => (c.charCodeAt(0) - 55).toString());
  const check = new Decimal(98).minus(new Decimal(digits).mod(97)).toNumber();
  return `GB${check.toString().padStart(2, '0')}${bban}`;
}

/** The instructions of a bank-transfer payment waiting for the payer. */
export function bankTransferInstructions(merchant: Merchant, payment: PaymentRow, expiresAt: Date): BankTransferInstructions {
  return {
    bankName: 'Till Sandbox Bank',
    accountName: `${merchant.name} via Till`.slice(0, 100),
    iban: sandboxIban(merchant.id),
    bic: 'TILLGB2L',
    reference: payment.reference_number,
    amount: payment.amount,
    currency: payment.currency,
    expiresAt,
  };
}

/** Where the payer reads a bank transfer's instructions: a page under the invoice's public page, for one of its payments. */
export const bankTransferPagePath = (invoiceIdentifier: string, paymentId: number): string => `/invoice/${invoiceIdentifier}/bank-transfer/${paymentId}`;

/** A bank transfer waiting for the payer (`pending`, like a live QR code): nothing moves until it arrives. */
export async function awaitBankTransfer(trx: Trx, clock: Clock, session: CheckoutSessionRow): Promise<PaymentRow> {
  const payment = await insertPayment(trx, { ...paymentBase(session, null, clock.now()), status: 'pending', method_type: 'bank_transfer' });
  await awaitPayer(trx, session, payment, 'pending');
  return payment;
}
