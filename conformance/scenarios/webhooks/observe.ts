// What the webhook scenarios of this folder share to watch events (fixtures/events.ts reads the log):
// a configuration with or without a filter, a paid session, and waiting for several event types at once.
import assert from 'node:assert/strict';
import type { ConformanceContext } from '../../types.js';
import { call, expectStatus, sleep } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { newConfiguration, sendTest } from '../fixtures/deliveries.js';
import { paidSubscription, subscriptionAction } from '../fixtures/subscriptions.js';
import { loggedEvents, type Watch } from '../fixtures/events.js';
import { cancelSession, newSession, payByCard } from '../fixtures/sessions.js';
import { WAIT_MS } from '../fixtures/wait.js';

/** How long a wait for events runs before it fails, and how long "nothing more arrives" waits. */
const SETTLE_MS = 1500;

/** An enabled configuration at a URL that never resolves: `subscribedEvents` as given, or none at all (the default); deleted at the end of the run. */
export async function watchWith(ctx: ConformanceContext, subscribedEvents?: string[], body: Record<string, unknown> = {}): Promise<Watch> {
  const config = await newConfiguration(ctx, { enabled: true, ...(subscribedEvents ? { subscribedEvents } : {}), ...body });
  return { id: config.id, close: async () => undefined };
}

/** Whether an event is about the session: the session itself, or a payment made through it. */
export const aboutSession =
  (sessionId: string) =>
  (e: any): boolean => {
    const o = e?.data?.object ?? {};
    return o.id === sessionId || o.sessionId === sessionId;
  };

/** Waits until the log holds an event of every one of `types` matching `match`; answers the matching events, oldest first. */
export async function waitForTypes(ctx: ConformanceContext, w: Watch, match: (e: any) => boolean, types: string[], what: string): Promise<any[]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = (await loggedEvents(ctx, w)).filter(match);
    const missing = types.filter((t) => !found.some((e) => e.type === t));
    if (missing.length === 0) return found;
    if (Date.now() > deadline)
      assert.fail(
        `${what}: after ${WAIT_MS / 1000} s no ${missing.join(', ')} reached the delivery log (it has ${found.map((e) => e.type).join(', ') || 'nothing'})`,
      );
    await sleep(250);
  }
}

/** The matching events once the log has settled (whatever was on its way has arrived). */
export async function settledEvents(ctx: ConformanceContext, w: Watch, match: (e: any) => boolean = () => true): Promise<any[]> {
  await sleep(SETTLE_MS);
  return (await loggedEvents(ctx, w)).filter(match);
}

/** The data.object of the one event of `type` among `events`. */
export function onlyOf(events: any[], type: string): any {
  const found = events.filter((e) => e.type === type);
  assert.equal(found.length, 1, `one ${type} (got ${found.length})`);
  return found[0].data.object;
}

/** A session (with `extra` fields) paid with the sandbox Visa; answers the session. */
export async function paidSession(ctx: ConformanceContext, extra: Record<string, unknown> = {}): Promise<any> {
  const s = await newSession(ctx, extra);
  await payByCard(ctx, s);
  return s;
}

/** Waits (up to WAIT_MS) for a delivery in the configuration's log (read with `key`) matching `match`; answers it. */
export async function waitForDelivery(ctx: ConformanceContext, configId: number, match: (d: any) => boolean, what: string, key = secretKey(ctx)): Promise<any> {
  for (const deadline = Date.now() + WAIT_MS; ; await sleep(250)) {
    const res = await call(ctx, 'checkout', 'listWebhookDeliveries', {
      method: 'GET',
      path: `/v1/WebhookConfiguration/${configId}/deliveries`,
      key,
      query: { limit: 100 },
    });
    expectStatus(res, 200, 'the delivery log');
    const found = (res.json.data as any[]).find(match);
    if (found) return found;
    assert.ok(Date.now() < deadline, `${what}: not in the delivery log of configuration ${configId} after ${WAIT_MS / 1000} s`);
  }
}

/** A paid session and a cancelled one (both with `extra` fields), each with the type of the event it sends. */
export async function paidAndCancelled(ctx: ConformanceContext, extra: Record<string, unknown> = {}): Promise<Array<[any, string]>> {
  const paid = await paidSession(ctx, extra);
  const cancelled = await newSession(ctx, extra);
  expectStatus(await cancelSession(ctx, cancelled.id), 204, 'cancel a session');
  return [
    [paid, 'checkout.session.completed'],
    [cancelled, 'checkout.session.cancelled'],
  ];
}

/** Waits for the one event of `type` about the session; answers its data.object. */
export const sessionEvent = async (ctx: ConformanceContext, w: Watch, s: { id: string }, type: string): Promise<any> =>
  onlyOf(await waitForTypes(ctx, w, aboutSession(s.id), [type], type), type);

/**
 * A subscription paid by card (then cancelled with `cancel` as the body) and a test event, under a watch on
 * every event; answers the settled log (other scenarios' events included), the session and the subscription id.
 */
export async function subscriptionStory(ctx: ConformanceContext, label: string, cancel?: Record<string, unknown>) {
  const w = await watchWith(ctx);
  const { session, subscriptionId } = await paidSubscription(ctx, label);
  if (cancel) expectStatus(await subscriptionAction(ctx, subscriptionId, 'cancel', cancel), 200, 'cancel the subscription');
  const test = await sendTest(ctx, w.id);
  expectStatus(test, 200, 'send a test event');
  const ours = (e: any) => aboutSession(session.id)(e) || e.data?.object?.id === subscriptionId || e.id === test.json.eventId;
  const types = ['payment.succeeded', 'checkout.session.completed', 'subscription.created', 'webhook.test', ...(cancel ? ['subscription.cancelled'] : [])];
  await waitForTypes(ctx, w, ours, types, label);
  return { events: await settledEvents(ctx, w), session, subscriptionId };
}
