// "Delivery and retry" (checkout-billing-api.md, Events, "signed webhooks"), called directly on the
// delivery (server/domain/webhooks/delivery.ts, delivery-log.ts) on a database of its own, on a test
// clock: a delivery that never succeeds is retried on the schedule, then dead-lettered, every
// attempt in the delivery log; a dead-lettered one can be re-sent to the current URL under the
// current secret. Every attempt fails at once and no request leaves this machine: the endpoint is on
// loopback, which these settings refuse before connecting. The schedule as a pure rule is in
// rules.unit.test.ts; over HTTP with real receivers, in retries.test.ts.
import { describe, expect, it } from 'vitest';
import { deliverySettings } from '../../server/api/kit.js';
import { writeEvent } from '../../server/domain/events/event.service.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { createConfiguration, updateConfiguration } from '../../server/domain/webhooks/configuration.service.js';
import { listDeliveries, resendDelivery } from '../../server/domain/webhooks/delivery-log.js';
import { attemptDelivery, claimDeliveries } from '../../server/domain/webhooks/delivery.js';
import { RETRY_DELAYS_SECONDS } from '../../server/domain/webhooks/retry-schedule.js';
import { dueDeliveries } from '../../server/domain/webhooks/due-deliveries.js';
import { dispatchPendingEvents } from '../../server/domain/webhooks/fan-out.js';
import { ManualClock } from '../../server/shared/clock.js';
import { randomToken } from '../../server/shared/crypto.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock('2026-05-04T09:00:00Z');
/** Loopback targets refused: each attempt fails at once (`address_not_allowed`), before any connection. */
const settings = deliverySettings({ config: { allowLoopbackWebhooks: false, webhookTimeoutMs: 1000 } });
const policy = { allowLoopback: true };
const database = useTestDatabase();

/** A new merchant's endpoint on loopback and one test-mode event for it, fanned out: the delivery's id, due now. */
async function failingDelivery() {
  const { merchant } = await createMerchant(database.db, clock, { name: `Retries ${randomToken(6)}` });
  const owner = { merchantId: merchant.id };
  const configuration = await createConfiguration(database.db, clock, policy, owner, { sandboxUrl: 'https://127.0.0.1:9/never' });
  await writeEvent(database.db, clock, {
    tenant: { merchantId: merchant.id, livemode: false },
    type: 'payment.succeeded',
    subject: { kind: 'test', id: 'test_retried', eventType: 'payment.succeeded', live: false, created_at: clock.now() },
  });
  const [id] = await dispatchPendingEvents(database.db, clock);
  return { owner, configuration, id: id! };
}

/** Runs the automatic attempts of a delivery as they fall due, up to its last: when each was made (seconds after the first). */
async function attemptUntilDeadLettered(id: string): Promise<number[]> {
  const start = clock.now().getTime();
  const at = [(await attemptDelivery(database.db, clock, settings, id))!.updated_at.getTime() - start];
  for (const delay of RETRY_DELAYS_SECONDS) {
    clock.advance(delay - 1);
    expect(await attemptDelivery(database.db, clock, settings, id), `not due ${delay - 1} s after the attempt before`).toBeUndefined();
    clock.advance(1);
    at.push((await attemptDelivery(database.db, clock, settings, id))!.updated_at.getTime() - start);
  }
  return at.map((ms) => ms / 1000);
}

describe('delivery and retry', () => {
  it('a delivery that never gets a 2xx is retried after 1 minute, 5 minutes, 30 minutes, 2 hours, 8 hours and 24 hours, then dead-lettered; every attempt is in the delivery log', async () => {
    const { owner, configuration, id } = await failingDelivery();
    const made = await attemptUntilDeadLettered(id);
    // 6 retries, about 34.5 hours in total.
    expect(made).toEqual([0, 60, 360, 2160, 9360, 38160, 124560]);
    const [after] = await database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).execute();
    expect(after).toMatchObject({ status: 'dead_lettered', attempt_count: 7, automatic_attempts: 7, next_attempt_at: null, locked_until: null });
    // Dead-lettered: no automatic attempt ever again.
    clock.advance(7 * 24 * 3600);
    expect(await attemptDelivery(database.db, clock, settings, id)).toBeUndefined();
    expect(await dueDeliveries(database.db, clock)).not.toContain(id);
    const log = await listDeliveries(database.db, { ...owner, livemode: false }, configuration.id, { limit: 10 });
    expect(log.data).toHaveLength(1);
    expect(log.data[0]!.attempts.map((a) => [a.error, a.http_status])).toEqual(Array.from({ length: 7 }, () => ['address_not_allowed', null]));
    expect(log.data[0]!.attempts.map((a) => (a.attempted_at.getTime() - log.data[0]!.attempts[0]!.attempted_at.getTime()) / 1000)).toEqual(made);
  });

  it('a dead-lettered delivery can be re-sent at any time, to the current URL under the current secret', async () => {
    const { owner, configuration, id } = await failingDelivery();
    await attemptUntilDeadLettered(id);
    clock.advance(30 * 24 * 3600);
    const { row, generated } = await updateConfiguration(database.db, clock, policy, owner, configuration.id, {
      sandboxUrl: 'https://127.0.0.2:9/moved',
      rotateSandboxSecret: true,
    });
    expect(generated.sandboxSecret).not.toBe(configuration.sandbox_secret);
    const resent = await resendDelivery(database.db, clock, settings, { ...owner, livemode: false }, configuration.id, id);
    // It failed again: still dead-lettered, no automatic attempt scheduled, the re-send in the log.
    expect(resent.delivery).toMatchObject({
      status: 'dead_lettered',
      attempt_count: 8,
      automatic_attempts: 7,
      next_attempt_at: null,
      url: 'https://127.0.0.2:9/moved',
    });
    expect(resent.attempts.at(-1)).toMatchObject({ url: 'https://127.0.0.2:9/moved', error: 'address_not_allowed' });
    // What the next re-send would sign with: the secret as it is now.
    const [claimed] = await claimDeliveries(database.db, clock, settings, [id], 'resend');
    expect(claimed!.target).toEqual({ url: 'https://127.0.0.2:9/moved', secret: row.sandbox_secret });
    expect(row.sandbox_secret).toBe(generated.sandboxSecret);
  });
});
