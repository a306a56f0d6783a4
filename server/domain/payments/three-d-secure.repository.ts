import type { Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { CHALLENGE_FAILURES } from '../../rails/three-d-secure.js';
import { writeEvent } from '../events/event.service.js';
import { paymentEventObject } from './payment.mapper.js';
import type { ThreeDsChallengeRow } from '../../db/tables/three-d-secure.js';

/** A session's open 3-D Secure challenge, locked; undefined when there is none. */
export async function lockOpenChallenge(trx: Transaction<Database>, sessionId: string): Promise<ThreeDsChallengeRow | undefined> {
  return trx.selectFrom('three_ds_challenges').selectAll().where('session_id', '=', sessionId).where('status', '=', 'open').forUpdate().executeTakeFirst();
}

/**
 * Closes an open challenge without a payment: the challenge becomes `failed`, `replaced` or
 * `expired`, its waiting payment fails (`payment.failed` with `authentication_*`), and the
 * session no longer points at it. The caller holds the session's row lock. Does nothing when the
 * session has no open challenge.
 */
export async function closeOpenChallenge(
  trx: Transaction<Database>,
  clock: Clock,
  sessionId: string,
  outcome: 'failed' | 'replaced' | 'expired',
  failure: { code: string; message: string } = CHALLENGE_FAILURES[outcome],
): Promise<ThreeDsChallengeRow | undefined> {
  const open = await lockOpenChallenge(trx, sessionId);
  if (!open) return undefined;
  const now = clock.now();
  const closed = await trx.updateTable('three_ds_challenges').set({ status: outcome, answered_at: now }).where('id', '=', open.id).returningAll().executeTakeFirstOrThrow();
  const payment = await trx
    .updateTable('payments')
    .set({ status: 'failed', failure_code: failure.code, failure_message: failure.message, updated_at: now })
    .where('id', '=', open.payment_id)
    .where('merchant_id', '=', open.merchant_id)
    .where('livemode', '=', open.livemode)
    .where('status', '=', 'requires_action')
    .returningAll()
    .executeTakeFirst();
  if (payment) {
    await trx.updateTable('checkout_sessions').set({ payment_id: null }).where('id', '=', sessionId).where('payment_id', '=', payment.id).execute();
    const method = payment.payment_method_id
      ? await trx.selectFrom('payment_methods').selectAll().where('id', '=', payment.payment_method_id).where('merchant_id', '=', payment.merchant_id).where('livemode', '=', payment.livemode).executeTakeFirst()
      : undefined;
    await writeEvent(trx, clock, { merchantId: payment.merchant_id, livemode: payment.livemode, type: 'payment.failed', object: paymentEventObject(payment, method), sessionId, paymentId: payment.id });
  }
  return closed;
}
