// Registering a card as a funding source. The sandbox processor tokenizes it (only brand, last 4,
// expiry and a fingerprint are kept) and its test number decides: the 3-D Secure card must be
// verified with a code sent to the outbox, the declining cards are refused, any other registers.
import { createHash, randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { PaymentMethodRow } from '../payments/payment.tables.js';
import { type CardDetails, tokenize, type TokenizedCard } from '../../rails/cards.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { findMerchant } from '../merchants/merchant.repository.js';
import { recordMessage } from '../messages/message.service.js';
import { insertPaymentMethod } from '../payments/payment-method.repository.js';
import { insertFundingSource, lockFundingSource, updateFundingSource } from './funding-source.repository.js';

/** How long a verification code can be used. */
export const VERIFICATION_TTL_MS = 24 * 3600_000;

export type RegistrationStatus = 'Registered' | 'VerificationRequired' | 'Failed';

export interface CardRegistration {
  status: RegistrationStatus;
  /** The verification authorization's outcome. */
  paymentStatus: 'Success' | 'CustomerAuthRequired' | 'Failed';
  fundingSourceId: number | null;
  message: string;
}

export interface RegisterCardRequest {
  card: CardDetails & { holderName?: string | undefined };
  name?: string | undefined;
  /** Replace this source's card instead of registering a new source. */
  fundingSourceId?: number | null | undefined;
}

/** The hash a code is kept as: never the code. */
export const codeHash = (fundingSourceId: number, code: string): string =>
  createHash('sha256').update(`till-funding-source:${fundingSourceId}:${code}`).digest('hex');

const WIRE_PARAM: Record<string, string> = { cardNumber: 'card.cardNumber', expiryYear: 'card.expiryDate', expiryMonth: 'card.expiryDate', cvc: 'card.cvv' };

/** The processor's checks, with the Commerce field names in the error. */
function tokenized(card: CardDetails, tenant: Tenant, now: Date): TokenizedCard {
  try {
    return tokenize(card, tenant.merchantId, now);
  } catch (e) {
    if (e instanceof AppError && e.code === 'invalid_card')
      throw new AppError('invalid_card', { param: WIRE_PARAM[e.param ?? ''] ?? 'card', message: e.message.replace('CVC', 'CVV') });
    throw e;
  }
}

/** The merchant's card payment option for the brand, else its first card option (1 when it has none). */
async function cardOption(trx: Trx, tenant: Tenant, brand: string): Promise<number> {
  const options = (await findMerchant(trx, tenant.merchantId)).payment_options.filter((o) => o.method === 'CreditCard');
  return (options.find((o) => o.code === `card_${brand}`) ?? options[0])?.id ?? 1;
}

async function sendCode(trx: Trx, clock: Clock, tenant: Tenant, sourceId: number, card: PaymentMethodRow): Promise<string> {
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  const merchant = await findMerchant(trx, tenant.merchantId);
  // Like saved cards' codes: a live code is kept only as a hash, so the outbox never holds it in the clear either.
  const shown = tenant.livemode ? '******' : code;
  await recordMessage(trx, clock, {
    tenant,
    channel: 'email',
    kind: 'otp',
    to: merchant.email ?? `funding-sources@${tenant.merchantId}.till.test`,
    subject: 'Verify your card',
    body: `Your Till verification code for funding source ${sourceId} (card ending ${card.last4}) is ${shown}. It expires in 24 hours.`,
  });
  return codeHash(sourceId, code);
}

const OUTCOME: Record<string, Omit<CardRegistration, 'fundingSourceId'>> = {
  requires_3ds: {
    status: 'VerificationRequired',
    paymentStatus: 'CustomerAuthRequired',
    message: 'The card needs verification: send the code we emailed to POST /v1/fundingSource/{id}/verify.',
  },
  insufficient_funds: { status: 'Failed', paymentStatus: 'Failed', message: 'The card was declined: insufficient funds. Nothing was saved.' },
  processing_error: { status: 'Failed', paymentStatus: 'Failed', message: 'The processor could not check the card. Nothing was saved.' },
};
const REGISTERED: Omit<CardRegistration, 'fundingSourceId'> = {
  status: 'Registered',
  paymentStatus: 'Success',
  message: 'The card is registered and ready to use.',
};

/** Registers a card (a new funding source, or a new card for `fundingSourceId`). */
export async function registerCard(db: Kysely<Database>, clock: Clock, tenant: Tenant, request: RegisterCardRequest): Promise<CardRegistration> {
  const now = clock.now();
  const token = tokenized(request.card, tenant, now);
  const outcome = OUTCOME[token.outcome] ?? REGISTERED;
  return db.transaction().execute(async (trx) => {
    const existing = request.fundingSourceId ? await lockFundingSource(trx, tenant, request.fundingSourceId) : undefined;
    if (request.fundingSourceId && !existing)
      throw new AppError('resource_not_found', { param: 'fundingSourceId', message: `No such funding source: ${request.fundingSourceId}.` });
    if (outcome.status === 'Failed') return { ...outcome, fundingSourceId: null };
    const card = await insertPaymentMethod(trx, {
      id: `pm_${randomToken(24)}`,
      merchant_id: tenant.merchantId,
      livemode: tenant.livemode,
      session_id: null,
      customer_id: null,
      brand: token.brand,
      last4: token.last4,
      expiry_month: token.expiryMonth,
      expiry_year: token.expiryYear,
      fingerprint: token.fingerprint,
      sandbox_outcome: token.outcome,
      billing_name: request.card.holderName ?? null,
      billing_email: null,
      created_at: now,
    });
    const verified = outcome.status === 'Registered';
    const values = {
      payment_method_id: card.id,
      name: request.name ?? existing?.name ?? `${token.brand[0]!.toUpperCase()}${token.brand.slice(1)} ending ${token.last4}`,
      payment_option_id: await cardOption(trx, tenant, token.brand),
      status: verified ? ('Active' as const) : ('PendingVerification' as const),
      is_verified: verified,
      verification_code_hash: null,
      verification_expires_at: verified ? null : new Date(now.getTime() + VERIFICATION_TTL_MS),
      failed_attempts: 0,
      updated_at: now,
    };
    let source = existing
      ? await updateFundingSource(trx, tenant, existing.id, values)
      : await insertFundingSource(trx, { ...values, merchant_id: tenant.merchantId, livemode: tenant.livemode, description: null, created_at: now });
    if (!verified) source = await updateFundingSource(trx, tenant, source.id, { verification_code_hash: await sendCode(trx, clock, tenant, source.id, card) });
    return { ...outcome, fundingSourceId: source.id };
  });
}
