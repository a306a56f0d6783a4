// 3-D Secure challenges of the sandbox issuer, one per card payment waiting for the payer
// (`requires_action`). A challenge is answered once: `succeeded`, `failed`, `replaced` by a later
// confirm, or `expired` with its session. What the answer does to the session is the checkout
// flow's business.
import type { Db, Trx } from '../../db/database.js';
import type { PaymentRow } from './payment.tables.js';
import type { ThreeDsChallengeRow } from './challenge.tables.js';
import type { Clock } from '../../shared/clock.js';
import type { Tenant } from '../../shared/tenant.js';
import { CHALLENGE_FAILURES, newChallengeId, newFormToken } from '../../rails/issuer-challenge.js';
import { findChallengeById, insertChallenge, lockChallengeRow, lockOpenChallengeOf, updateChallenge } from './challenge.repository.js';
import { updatePayment } from './payment.repository.js';
import { cardOf, paymentEvent } from './payment.service.js';

/** Opens a challenge for a payment waiting for the payer, valid until `expiresAt`; the payer returns to `returnUrl` (null: a plain result page). */
export async function openChallenge(
  trx: Trx,
  clock: Clock,
  payment: PaymentRow,
  options: { returnUrl: string | null; expiresAt: Date },
): Promise<ThreeDsChallengeRow> {
  return insertChallenge(trx, {
    id: newChallengeId(),
    merchant_id: payment.merchant_id,
    livemode: payment.livemode,
    session_id: payment.session_id!,
    payment_id: payment.id,
    form_token: newFormToken(),
    return_url: options.returnUrl,
    status: 'open',
    expires_at: options.expiresAt,
    answered_at: null,
    created_at: clock.now(),
  });
}

/** A challenge by its id (the page's credential), or undefined. */
export const findChallenge = (db: Db, id: string): Promise<ThreeDsChallengeRow | undefined> => findChallengeById(db, id);

/** A challenge, locked (after its session's lock: the order confirm and expiry take them in too). */
export const lockChallenge = (trx: Trx, tenant: Tenant, id: string): Promise<ThreeDsChallengeRow> => lockChallengeRow(trx, tenant, id);

/** Marks a challenge answered with success. */
export async function markChallengeSucceeded(trx: Trx, clock: Clock, challenge: ThreeDsChallengeRow): Promise<void> {
  await updateChallenge(trx, { merchantId: challenge.merchant_id, livemode: challenge.livemode }, challenge.id, {
    status: 'succeeded',
    answered_at: clock.now(),
  });
}

/**
 * Closes a session's open challenge without a payment: the challenge becomes `failed`, `replaced`
 * or `expired`, and its waiting payment fails (`payment.failed` with `authentication_*`). Answers
 * the failed payment (undefined when there was no open challenge, or its payment no longer waited).
 * The caller holds the session's lock and clears the session's pointer to the payment.
 */
export async function closeOpenChallenge(
  trx: Trx,
  clock: Clock,
  tenant: Tenant,
  sessionId: string,
  outcome: 'failed' | 'replaced' | 'expired',
  failure: { code: string; message: string } = CHALLENGE_FAILURES[outcome],
): Promise<{ challenge: ThreeDsChallengeRow; payment: PaymentRow | undefined } | undefined> {
  const open = await lockOpenChallengeOf(trx, tenant, sessionId);
  if (!open) return undefined;
  const now = clock.now();
  const challenge = await updateChallenge(trx, tenant, open.id, { status: outcome, answered_at: now });
  const payment = await updatePayment(
    trx,
    tenant,
    open.payment_id,
    { status: 'failed', failure_code: failure.code, failure_message: failure.message, updated_at: now },
    'requires_action',
  );
  return { challenge, payment };
}

/** `payment.failed` for a payment whose challenge closed without it. */
export async function challengeFailedEvent(trx: Trx, clock: Clock, payment: PaymentRow): Promise<void> {
  await paymentEvent(trx, clock, 'payment.failed', payment, await cardOf(trx, payment));
}
