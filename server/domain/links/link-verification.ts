// Email verification of a link's payer (`SendVerificationCode`): a 6-digit code to the outbox,
// kept only as a hash; valid 10 minutes and for 5 wrong tries; a new code ends the previous one;
// one code per email and link per 60 seconds. `CreateInvoice` and `CreateSubscription` spend it.
import { randomInt } from 'node:crypto';
import type { Db, Trx } from '../../db/database.js';
import type { PaymentLinkRow } from './link.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { recordMessage } from '../messages/message.service.js';
import { countWrongCode, insertCode, lockCode, lockLastSent, markCodeUsed, supersedeCodes } from './link-verification.repository.js';

export const CODE_TTL_MS = 10 * 60_000;
export const MAX_WRONG_CODES = 5;
export const RESEND_AFTER_MS = 60_000;

const hashCode = (tokenId: string, code: string) => hashSecret(`${tokenId}:${code}`);

/** A code sent: its token, the address, and when it stops working. */
export interface SentCode {
  tokenId: string;
  email: string;
  expiresAt: Date;
}

/** Sends a new code to `email` for the link (the caller checked the link accepts payments), in the caller's transaction. */
export async function sendLinkCode(trx: Trx, clock: Clock, link: PaymentLinkRow, email: string): Promise<SentCode> {
  if (!link.is_email_verification_required)
    throw new AppError('validation_error', { param: 'email', message: 'This payment link does not use email verification.' });
  const now = clock.now();
  const last = await lockLastSent(trx, link, email);
  const wait = last ? RESEND_AFTER_MS - (now.getTime() - last.getTime()) : 0;
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new AppError('rate_limit_exceeded', {
      message: `A code was sent to this email less than a minute ago. Wait ${seconds} seconds before asking for another.`,
      retryAfterSeconds: seconds,
    });
  }
  await supersedeCodes(trx, link, email);
  const tokenId = `vt_${randomToken(20)}`;
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
  await insertCode(trx, link, { id: tokenId, email, codeHash: hashCode(tokenId, code), expiresAt, createdAt: now });
  const merchant = await getMerchant(trx, link.merchant_id);
  await recordMessage(trx, clock, {
    tenant: tenantOf(link),
    channel: 'email',
    kind: 'otp',
    to: email,
    subject: `Your ${merchant.name} verification code`,
    body: `Your verification code for "${link.name}" is ${code}. It expires in 10 minutes.`,
  });
  return { tokenId, email, expiresAt };
}

const wrongCode = () =>
  new AppError('verification_code_invalid', { param: 'verificationCode', message: 'The verification code is wrong or has expired. Ask for a new code.' });

/** A wrong code for a live token: the try is counted after the request's transaction rolls back (`countWrongTry`). */
export class WrongLinkCode extends AppError {
  constructor(readonly tokenId: string) {
    super('verification_code_invalid', { param: 'verificationCode', message: 'The verification code is wrong. Check the email, or ask for a new code.' });
  }
}

/**
 * Spends a verification of the link for `email`, in the caller's transaction: the token must be
 * the latest code sent to that email, not expired, not used, with fewer than 5 wrong tries. A
 * wrong code throws `WrongLinkCode`.
 */
export async function spendLinkCode(
  trx: Trx,
  clock: Clock,
  link: PaymentLinkRow,
  email: string,
  proof: { tokenId?: string | undefined; code?: string | undefined },
): Promise<void> {
  if (!link.is_email_verification_required) return;
  if (!proof.tokenId || !proof.code)
    throw new AppError('parameter_missing', {
      param: 'verificationTokenId',
      message: 'This payment link requires email verification: send verificationTokenId and verificationCode from SendVerificationCode.',
    });
  const row = await lockCode(trx, link, proof.tokenId);
  if (!row || row.email !== email || row.status !== 'sent' || row.expires_at <= clock.now() || row.wrong_attempts >= MAX_WRONG_CODES) throw wrongCode();
  if (hashCode(row.id, proof.code) !== row.code_hash) throw new WrongLinkCode(row.id);
  await markCodeUsed(trx, link, row.id);
}

/** Counts a wrong try of a code (after the failed request's transaction). */
export async function countWrongTry(db: Db, error: unknown): Promise<void> {
  if (error instanceof WrongLinkCode) await countWrongCode(db, error.tokenId);
}
