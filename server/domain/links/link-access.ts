// What a payer must satisfy before a link makes an invoice or a subscription: the link accepts
// payments now (Active, within its validity, uses left, uses left for this payer), the password of
// a protected link, and a valid email verification code where the link asks for one.
import type { Db } from '../../db/database.js';
import type { PaymentLinkRow } from './link.tables.js';
import { verifyPassword } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { paidCountOf } from './link.repository.js';

const notAccepting = (why: string) => new AppError('invalid_state', { message: `This payment link does not accept payments: ${why}.` });

/** 409 `invalid_state` saying why, unless the link accepts payments at `now`. */
export function assertAccepting(link: PaymentLinkRow, now: Date): void {
  if (link.status === 'draft') throw notAccepting('it is not published yet');
  if (link.status === 'inactive') throw notAccepting('the merchant has deactivated it');
  if (link.status === 'expired') throw notAccepting('it has expired');
  if (link.valid_to !== null && link.valid_to <= now) throw notAccepting('it has expired');
  if (link.valid_from > now) throw notAccepting(`it opens on ${link.valid_from.toISOString()}`);
  if (link.max_uses !== null && link.completed_payment_count >= link.max_uses) throw notAccepting('it has reached its limit of payments');
}

/** 409 when this payer (by email) has used up `maxUsesPerCustomer`. */
export async function assertPayerHasUses(db: Db, link: PaymentLinkRow, email: string): Promise<void> {
  if (link.max_uses_per_customer === null) return;
  if ((await paidCountOf(db, link.id, email)) >= link.max_uses_per_customer) throw notAccepting('this email has reached its limit of payments on it');
}

/** The password of a protected link: missing 400 `parameter_missing`, wrong 400 `validation_error`, both naming `password`. */
export async function assertPassword(link: PaymentLinkRow, password: string | undefined): Promise<void> {
  if (link.password_hash === null) return;
  if (password === undefined || password === '')
    throw new AppError('parameter_missing', { param: 'password', message: 'This payment link is password-protected: send its password.' });
  if (!(await verifyPassword(password, link.password_hash)))
    throw new AppError('validation_error', { param: 'password', message: 'The password is not right.' });
}

/** A payer's email as links compare it. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

/** How a link's page presents it: taking payments, or why not. */
export type LinkPageState = 'open' | 'draft' | 'inactive' | 'expired' | 'not_yet_valid' | 'spent';

export function linkPageState(link: PaymentLinkRow, now: Date): LinkPageState {
  if (link.status === 'draft' || link.status === 'inactive') return link.status;
  if (link.max_uses !== null && link.completed_payment_count >= link.max_uses) return 'spent';
  if (link.status === 'expired' || (link.valid_to !== null && link.valid_to <= now)) return 'expired';
  if (link.valid_from > now) return 'not_yet_valid';
  return 'open';
}
