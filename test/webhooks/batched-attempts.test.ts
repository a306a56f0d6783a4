// Delivery attempts in batches: deliveries claimed and recorded many at once by the same rules as
// `attemptDelivery` (due, not held, configuration enabled; the retry schedule, dead-letter), one
// attempt that cannot be recorded never holding back the others. Real receivers, real database
// (PGlite, or PostgreSQL with DATABASE_URL). The job that runs them: delivery-job.test.ts.
import { describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import {
  type AttemptResult,
  attemptDelivery,
  claimDeliveries as claimDueDeliveries,
  recordAttempts,
  sendClaimed,
} from '../../server/domain/webhooks/delivery.js';
import { dispatchPendingEvents } from '../../server/domain/webhooks/fan-out.js';
import { sendWebhook } from '../../server/domain/webhooks/sender.js';
import { createTestSession } from '../support/server.js';
import { attemptsOf as attemptsIn, deliveriesOf as deliveriesIn, paymentEvent as writePaymentEvent, useWebhookServer } from '../support/webhooks.js';

const { t, clock, settings, receiver, configure: configureOver } = useWebhookServer();
const configure = async (m: MerchantCredentials, body: Record<string, unknown>) => (await configureOver(m, body)).json;
/** An event of the merchant, written as a state change writes it (this process is told). */
const paymentEvent = (m: MerchantCredentials, n: number) => writePaymentEvent(t.database.db, clock, m.merchantId, n);
const deliveriesOf = (configurationId: number) => deliveriesIn(t.database.db, configurationId);
const attemptsOf = (deliveryId: string) => attemptsIn(t.database.db, deliveryId);

/** Fans out (by the test clock) and returns the ids of this configuration's new deliveries. */
async function fanOut(configurationId: number): Promise<string[]> {
  await dispatchPendingEvents(t.database.db, clock);
  return (await deliveriesOf(configurationId)).filter((d) => d.status === 'pending').map((d) => d.id);
}

/** One test send to `url` (a loopback receiver of this file). */
const sendTestWebhook = (url: string) =>
  sendWebhook({
    url,
    secret: 'whsec_x',
    eventId: 'evt_AAAAAAAAAAAA',
    eventType: 'webhook.test',
    body: '{}',
    timestamp: 1,
    timeoutMs: 1500,
    allowLoopback: true,
  });

describe('batched attempts', () => {
  it('claims in one go exactly what attemptDelivery would: due, not held, configuration enabled; with the event and the current target', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 4; i++) await paymentEvent(m, i);
    const [due, held, later, other] = await fanOut(c.id);
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(clock.now().getTime() + 90_000) })
      .where('id', '=', held!)
      .execute();
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date(clock.now().getTime() + 60_000) })
      .where('id', '=', later!)
      .execute();

    const claimed = await claimDueDeliveries(t.database.db, clock, settings, [due!, held!, later!, 'whd_nosuchdelivery']);
    expect(claimed.map((x) => x.delivery.id)).toEqual([due]);
    const [one] = claimed;
    expect(one!.event).toMatchObject({ id: one!.delivery.event_id, type: 'payment.succeeded', merchant_id: m.merchantId });
    expect(JSON.parse(one!.body)).toMatchObject({ id: one!.delivery.event_id, type: 'payment.succeeded', data: { object: { id: 'test_0' } } });
    expect(one!.target).toEqual({ url: r.url, secret: c.sandboxSecret });
    expect(one!.delivery.locked_until!.getTime()).toBe(clock.now().getTime() + (2 + 15) * 1000); // the timeout, rounded up, plus 15 s to record the attempt
    // Now held by this claim, for attemptDelivery as for another batch.
    expect(await claimDueDeliveries(t.database.db, clock, settings, [due!])).toEqual([]);
    expect(await attemptDelivery(t.database.db, clock, settings, due!)).toBeUndefined();

    // A disabled configuration's deliveries wait.
    await t.call('PATCH', `/v1/WebhookConfiguration/${c.id}`, { key: m.keys.test.secret, body: { enabled: false } });
    expect(await claimDueDeliveries(t.database.db, clock, settings, [other!])).toEqual([]);
    await t.call('PATCH', `/v1/WebhookConfiguration/${c.id}`, { key: m.keys.test.secret, body: { enabled: true } });
    expect((await claimDueDeliveries(t.database.db, clock, settings, [other!])).map((x) => x.delivery.id)).toEqual([other]);
  });

  it("reads a session delivery's target from the session: its notificationUrl under its own secret", async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const s = await createTestSession(t, m, false, { notificationUrl: r.url });
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    await dispatchPendingEvents(t.database.db, clock);
    const [d] = await t.database.db.selectFrom('webhook_deliveries').selectAll().where('session_id', '=', s.id).execute();
    const [claimed] = await claimDueDeliveries(t.database.db, clock, settings, [d!.id]);
    expect(claimed!.target).toEqual({ url: r.url, secret: s.created.notificationSecret });
    const outcome = await sendClaimed(claimed!, settings);
    expect(outcome).toMatchObject({ ok: true, httpStatus: 200 });
    expect(r.received[0]!.json).toMatchObject({ id: d!.event_id, type: 'checkout.session.cancelled' });
    expect(r.received[0]!.headers['x-webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
  });

  it("renders an event's body once for all its endpoints and retries, and each renderer's body apart", async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 503);
    const first = await configure(m, { sandboxUrl: r.url });
    const second = await configure(m, { sandboxUrl: r.url });
    await paymentEvent(m, 7);
    await dispatchPendingEvents(t.database.db, clock);
    const ids = [...(await deliveriesOf(first.id)), ...(await deliveriesOf(second.id))].map((d) => d.id);
    const rendered: string[] = [];
    const counting = { ...settings, render: (e: Parameters<typeof settings.render>[0]) => (rendered.push(e.id), settings.render(e)) };

    const claimed = await claimDueDeliveries(t.database.db, clock, counting, ids);
    expect(claimed).toHaveLength(2);
    expect(rendered).toEqual([claimed[0]!.event.id]);
    expect(claimed[1]!.body).toBe(claimed[0]!.body);
    // Sent, failed and retried a minute later: the same body, not rendered again.
    await recordAttempts(
      t.database.db,
      await Promise.all(claimed.map(async (one) => ({ claimed: one, outcome: await sendClaimed(one, counting) }))),
      () => undefined,
    );
    clock.advance(60);
    const retried = await claimDueDeliveries(t.database.db, clock, counting, ids);
    expect(retried.map((x) => x.body)).toEqual([claimed[0]!.body, claimed[0]!.body]);
    expect(rendered).toHaveLength(1);
    expect(r.received.map((x) => x.raw)).toEqual([claimed[0]!.body, claimed[0]!.body]);

    // Another renderer renders the event itself: a body is kept for the renderer that made it.
    await recordAttempts(
      t.database.db,
      retried.map((one) => ({ claimed: one, outcome: { ok: false, httpStatus: 503, durationMs: 1, responseSnippet: null, error: 'http_status' } })),
      () => undefined,
    );
    clock.advance(5 * 60);
    const other = { ...settings, render: (e: Parameters<typeof settings.render>[0]) => `{"other":"${e.id}"}` };
    const again = await claimDueDeliveries(t.database.db, clock, other, ids);
    expect(again.map((x) => x.body)).toEqual([`{"other":"${claimed[0]!.event.id}"}`, `{"other":"${claimed[0]!.event.id}"}`]);
  });

  it('records many attempts at once with the retry schedule of attemptDelivery: succeeded, failed with its next attempt, dead-lettered', async () => {
    const m = await t.newMerchant();
    const r = await receiver((n) => (n === 0 ? 200 : 503));
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 3; i++) await paymentEvent(m, i);
    const ids = await fanOut(c.id);
    // The third has had all its automatic attempts but the last.
    await t.database.db.updateTable('webhook_deliveries').set({ automatic_attempts: 6, attempt_count: 6 }).where('id', '=', ids[2]!).execute();
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, ids);
    const byId = new Map(claimed.map((x) => [x.delivery.id, x]));
    const results: AttemptResult[] = [];
    for (const id of ids) {
      const one = byId.get(id)!;
      results.push({ claimed: one, outcome: await sendClaimed(one, settings) });
    }
    const errors: string[] = [];
    const rows = await recordAttempts(t.database.db, results, (_err, id) => errors.push(id));
    expect(errors).toEqual([]);
    expect(rows.map((x) => x.id).sort()).toEqual([...ids].sort());

    const [ok, failed, dead] = await deliveriesOf(c.id);
    // What recordAttempts answers of each is the state the database now holds.
    const held = (d: typeof ok) => ({
      id: d!.id,
      event_id: d!.event_id,
      status: d!.status,
      next_attempt_at: d!.next_attempt_at,
      automatic_attempts: d!.automatic_attempts,
      locked_until: d!.locked_until,
    });
    expect([...rows].sort((a, b) => a.id.localeCompare(b.id))).toEqual([ok, failed, dead].map(held).sort((a, b) => a.id.localeCompare(b.id)));
    expect(ok).toMatchObject({ status: 'succeeded', attempt_count: 1, automatic_attempts: 1, next_attempt_at: null, locked_until: null, url: r.url });
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 1, automatic_attempts: 1, locked_until: null });
    expect(failed!.next_attempt_at!.getTime()).toBe(clock.now().getTime() + 60_000);
    expect(dead).toMatchObject({ status: 'dead_lettered', attempt_count: 7, automatic_attempts: 7, next_attempt_at: null, locked_until: null });
    const [okAttempt] = await attemptsOf(ok!.id);
    expect(okAttempt).toMatchObject({ http_status: 200, error: null, url: r.url, response_snippet: '{"received":true,"n":0}' });
    expect(okAttempt!.attempted_at.getTime()).toBe(clock.now().getTime());
    expect(await attemptsOf(failed!.id)).toMatchObject([{ http_status: 503, error: 'http_status' }]);
    expect(await attemptsOf(dead!.id)).toHaveLength(1);
  });

  it('keeps a recorded delivery held for its next attempt as holdAfter says, and only while its configuration is enabled', async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 503);
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 3; i++) await paymentEvent(m, i);
    const ids = await fanOut(c.id);
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, ids);
    const results: AttemptResult[] = await Promise.all(claimed.map(async (one) => ({ claimed: one, outcome: await sendClaimed(one, settings) })));
    const until = new Date(clock.now().getTime() + 90_000);
    // The first is released; the others are asked to stay held, with the retry time the schedule gave them.
    const asked: Array<{ id: string; status: string; next: number | undefined }> = [];
    const holdAfter = (one: (typeof claimed)[number], after: { status: string; nextAttemptAt: Date | null }) => {
      asked.push({ id: one.delivery.id, status: after.status, next: after.nextAttemptAt?.getTime() });
      return one.delivery.id === ids[0] ? null : until;
    };
    const rows = await recordAttempts(t.database.db, results.slice(0, 2), () => undefined, holdAfter);
    expect(asked).toEqual(ids.slice(0, 2).map((id) => ({ id, status: 'failed', next: clock.now().getTime() + 60_000 })));
    expect(rows.map((x) => [x.id, x.locked_until])).toEqual([
      [ids[0], null],
      [ids[1], until],
    ]);
    const byId = new Map((await deliveriesOf(c.id)).map((d) => [d.id, d]));
    expect(byId.get(ids[0]!)).toMatchObject({ status: 'failed', locked_until: null });
    expect(byId.get(ids[1]!)).toMatchObject({ status: 'failed', locked_until: until });
    // Held, it is not claimed again, even once due.
    clock.advance(60);
    expect((await claimDueDeliveries(t.database.db, clock, settings, ids.slice(0, 2))).map((x) => x.delivery.id)).toEqual([ids[0]]);

    // A disabled configuration's delivery is released, as a claim would not take it.
    await t.call('PATCH', `/v1/WebhookConfiguration/${c.id}`, { key: m.keys.test.secret, body: { enabled: false } });
    const [third] = await recordAttempts(
      t.database.db,
      results.slice(2),
      () => undefined,
      () => until,
    );
    expect(third).toMatchObject({ id: ids[2], status: 'failed', locked_until: null });
    expect((await deliveriesOf(c.id)).find((d) => d.id === ids[2])).toMatchObject({ attempt_count: 1, locked_until: null });
  });

  it('an attempt whose delivery was deleted meanwhile (configuration deleted) is left out, the others are recorded', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const gone = await configure(m, { sandboxUrl: r.url, subscribedEvents: ['payment.succeeded'] });
    const kept = await configure(m, { sandboxUrl: r.url, subscribedEvents: ['payment.succeeded'] });
    await paymentEvent(m, 1);
    await dispatchPendingEvents(t.database.db, clock);
    const ids = [...(await deliveriesOf(gone.id)), ...(await deliveriesOf(kept.id))].map((d) => d.id);
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, ids);
    expect(claimed).toHaveLength(2);
    const results = await Promise.all(claimed.map(async (one) => ({ claimed: one, outcome: await sendClaimed(one, settings) })));
    await t.call('DELETE', `/v1/WebhookConfiguration/${gone.id}`, { key: m.keys.test.secret });
    const errors: string[] = [];
    const rows = await recordAttempts(t.database.db, results, (_err, id) => errors.push(id));
    expect(errors).toEqual([]);
    expect(rows.map((x) => x.id)).toEqual([ids[1]]);
    expect(await deliveriesOf(kept.id)).toMatchObject([{ status: 'succeeded', attempt_count: 1 }]);
    expect(await attemptsOf(ids[0]!)).toEqual([]);
  });

  it('one attempt that cannot be recorded does not hold back the others: they are then recorded one by one', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 3; i++) await paymentEvent(m, i);
    const ids = await fanOut(c.id);
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, ids);
    // PostgreSQL text cannot hold U+0000: this one row makes the statement for all three fail.
    const results = claimed.map((one, i) => ({
      claimed: one,
      outcome: { ok: true, httpStatus: 200, durationMs: 3, responseSnippet: i === 1 ? 'bad\u0000' : 'fine', error: null },
    }));
    const errors: string[] = [];
    const rows = await recordAttempts(t.database.db, results, (_err, id) => errors.push(id));
    expect(errors).toEqual([claimed[1]!.delivery.id]);
    expect(rows.map((x) => x.id).sort()).toEqual([claimed[0]!.delivery.id, claimed[2]!.delivery.id].sort());
    // The one not recorded keeps its claim until it passes, and is then attempted again.
    const [stuck] = await t.database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', claimed[1]!.delivery.id).execute();
    expect(stuck).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(stuck!.locked_until).not.toBeNull();
  });

  it("an answer cut at the snippet's limit inside an emoji, or a snippet holding half of one: recorded, never half a character", async () => {
    const r = await receiver((_n, _req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`${'a'.repeat(999)}😀 and more`);
    });
    const outcome = await sendTestWebhook(r.url);
    expect(outcome.responseSnippet).toBe('a'.repeat(999));
    // Recorded in one batch with a snippet of half an emoji: the half is stored as U+FFFD, the batch not refused.
    const m = await t.newMerchant();
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 2; i++) await paymentEvent(m, i);
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, await fanOut(c.id));
    const snippets = ['half \uD83D', 'back\\slash \\uD83D 😀'];
    const results = claimed.map((one, i) => ({
      claimed: one,
      outcome: { ok: false, httpStatus: 500, durationMs: 3, responseSnippet: snippets[i]!, error: 'http_status' },
    }));
    const errors: string[] = [];
    expect(await recordAttempts(t.database.db, results, (_err, id) => errors.push(id))).toHaveLength(2);
    expect(errors).toEqual([]);
    const logged = await Promise.all(claimed.map(async (one) => (await attemptsOf(one.delivery.id)).map((a) => a.response_snippet)));
    expect(logged).toEqual([['half \uFFFD'], ['back\\slash \\uD83D 😀']]);
  });

  it('a receiver answering with a NUL byte: the attempt is recorded, the NUL shown as U+FFFD in the log', async () => {
    const r = await receiver((_n, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok\u0000done');
    });
    const outcome = await sendTestWebhook(r.url);
    expect(outcome).toMatchObject({ ok: true, responseSnippet: 'ok\uFFFDdone' });
    const m = await t.newMerchant();
    const c = await configure(m, { sandboxUrl: r.url });
    await paymentEvent(m, 1);
    const [id] = await fanOut(c.id);
    expect(await attemptDelivery(t.database.db, clock, settings, id!)).toMatchObject({ status: 'succeeded', attempt_count: 1, locked_until: null });
  });
});
