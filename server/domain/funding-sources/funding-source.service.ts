// Funding sources: the list, the verification by code (5 wrong codes block the source), and
// charging a verified source (a card on file) for an invoice.
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { FundingSourceRow } from './funding-source.tables.js';
import type { Clock } from '../../shared/clock.js';
import { sameHash } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { type CardOnFileOutcome, chargeCardOnFile } from '../payments/card-on-file-charge.js';
import { findFundingSource, findFundingSources, type FundingSourceWithCard, lockFundingSource, updateFundingSource } from './funding-source.repository.js';
import { codeHash } from './register-card.js';

export type { FundingSourceWithCard };

/** Wrong codes a source takes before it is `Blocked`. */
export const MAX_WRONG_CODES = 5;
/** The most sources a list answers (the contract's `maxItems`). */
const LIST_LIMIT = 100;

export interface Verification {
  source: FundingSourceRow;
  message: string;
}

/** The tenant's funding sources, newest first, every status. */
export async function listFundingSources(db: Kysely<Database>, tenant: Tenant): Promise<FundingSourceWithCard[]> {
  return findFundingSources(db, tenant, LIST_LIMIT);
}

/** A wrong or expired code: counted (the 5th blocks the source), the count committed before the error is answered. */
async function wrongCode(trx: Trx, tenant: Tenant, source: FundingSourceRow, now: Date): Promise<AppError> {
  const failed = source.failed_attempts + 1;
  if (failed >= MAX_WRONG_CODES) {
    await updateFundingSource(trx, tenant, source.id, { failed_attempts: failed, status: 'Blocked', verification_code_hash: null, updated_at: now });
    return new AppError('verification_code_invalid', {
      param: 'VerificationCode',
      message: `The code is wrong. That was the ${MAX_WRONG_CODES}th wrong code: the funding source is now Blocked; register the card again.`,
    });
  }
  await updateFundingSource(trx, tenant, source.id, { failed_attempts: failed, updated_at: now });
  const left = MAX_WRONG_CODES - failed;
  return new AppError('verification_code_invalid', {
    param: 'VerificationCode',
    message: `The code is wrong. ${left} ${left === 1 ? 'attempt is' : 'attempts are'} left.`,
  });
}

/** Checks a code: the right one verifies the source (`Active`); verifying a verified source changes nothing. */
export async function verifyFundingSource(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number, code: string): Promise<Verification> {
  const outcome = await db.transaction().execute(async (trx): Promise<Verification | { refused: AppError }> => {
    const source = await lockFundingSource(trx, tenant, id);
    if (!source) throw new AppError('resource_not_found', { param: 'id', message: `No such funding source: ${id}.` });
    if (source.is_verified) return { source, message: 'The funding source is already verified.' };
    if (source.status !== 'PendingVerification') {
      throw new AppError('invalid_state', { message: `The funding source is ${source.status}: it cannot be verified. Register the card again.` });
    }
    const now = clock.now();
    if (source.verification_expires_at === null || source.verification_expires_at <= now || source.verification_code_hash === null) {
      throw new AppError('verification_code_invalid', {
        param: 'VerificationCode',
        message: 'The code has expired. Register the card again (with fundingSourceId) for a new one.',
      });
    }
    if (!sameHash(codeHash(source.id, code), source.verification_code_hash)) return { refused: await wrongCode(trx, tenant, source, now) };
    const verified = await updateFundingSource(trx, tenant, id, {
      status: 'Active',
      is_verified: true,
      verification_code_hash: null,
      verification_expires_at: null,
      failed_attempts: 0,
      updated_at: now,
    });
    return { source: verified, message: 'The funding source is verified.' };
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}

/** What charging a funding source is for. */
export interface FundingSourceCharge {
  tenant: Tenant;
  fundingSourceId: number;
  /** Exact decimal text, more than 0. */
  amount: string;
  currency: string;
  invoiceId: number;
  metadata: Record<string, string>;
}

/**
 * Charges a verified, `Active` funding source for an invoice, in the caller's transaction: the
 * card on file is charged as a renewal is (a `succeeded` payment posted to the ledger with its fee,
 * or a `failed` one; `payment.succeeded` / `payment.failed`). An unknown source is a 404 naming
 * `fundingSourceId`; one not verified or not `Active` a 409 `invalid_state`.
 */
export async function chargeFundingSource(trx: Trx, clock: Clock, charge: FundingSourceCharge): Promise<CardOnFileOutcome> {
  const source = await usableFundingSource(trx, charge.tenant, charge.fundingSourceId);
  return chargeCardOnFile(trx, clock, {
    tenant: charge.tenant,
    amount: charge.amount,
    currency: charge.currency,
    invoiceId: charge.invoiceId,
    paymentMethodId: source.payment_method_id,
    metadata: charge.metadata,
  });
}

/**
 * A funding source of the tenant that may pay: verified and `Active`. An unknown one is a 404
 * naming `fundingSourceId`; one not verified or not `Active` a 409 `invalid_state`.
 */
export async function usableFundingSource(db: Db, tenant: Tenant, id: number): Promise<FundingSourceWithCard> {
  const source = await findFundingSource(db, tenant, id);
  if (!source) throw new AppError('resource_not_found', { param: 'fundingSourceId', message: `No such funding source: ${id}.` });
  if (!source.is_verified || source.status !== 'Active') {
    throw new AppError('invalid_state', {
      param: 'fundingSourceId',
      message: `Funding source ${source.id} is ${source.is_verified ? source.status : 'not verified'}: it cannot pay.`,
    });
  }
  return source;
}
