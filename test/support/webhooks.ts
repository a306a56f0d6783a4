// Webhook tests' common ground: the file's server with its test clock, receivers and the calls every
// file makes (configure an endpoint, read its delivery log, pay a session); the outbox as the
// delivery job sees it; and Till in processes of its own delivering a backlog (the restart tests).
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { deliverySettings } from '../../server/api/kit.js';
import type { Db } from '../../server/db/database.js';
import { writeEvent } from '../../server/domain/events/event.service.js';
import { createMerchant, type MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { createConfiguration } from '../../server/domain/webhooks/configuration.service.js';
import { deliverDueWebhooks } from '../../server/domain/webhooks/due-deliveries.js';
import { type Clock, ManualClock, systemClock } from '../../server/shared/clock.js';
import { usingPostgres } from './database.js';
import { mustListen, processDatabase, type Running, spawnTill, type Till } from './processes.js';
import { createTestSession, useTestServer } from './server.js';
import { type Receiver, receiverPool, startReceiver } from './webhook-receiver.js';

/** A public address from a documentation range: accepted as a URL, never delivered to here. */
export const PUBLIC_URL = 'https://203.0.113.10/till-hooks';
export const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' };
/** `X-Webhook-Signature` as a receiver computes it: the hex HMAC-SHA256 of the raw body. */
export const hexSig = (raw: string, secret: string) => `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex')}`;

/**
 * The file's server on a test clock of its own, with loopback receivers allowed and a short attempt
 * timeout (1.5 s: a hanging receiver fails quickly), its receivers (closed after its last test), and
 * `deliver()`: the app's webhook job code, run by the test (fan-out, then every attempt due by the clock).
 */
export function useWebhookServer() {
  const clock = new ManualClock(new Date());
  const config = { allowLoopbackWebhooks: true, webhookTimeoutMs: 1500 };
  const settings = deliverySettings({ config });
  const t = useTestServer({ clock, config });
  const receivers = receiverPool();
  afterAll(() => receivers.closeAll());

  const configure = (merchant: MerchantCredentials, body: Record<string, unknown>) =>
    t.call('POST', '/v1/WebhookConfiguration', { key: merchant.keys.test.secret, body });
  /** A session paid with a test card (a hold with `captureMethod: 'manual'`). */
  async function paidSession(merchant: MerchantCredentials, body: Record<string, unknown> = {}) {
    const s = await createTestSession(t, merchant, false, { amount: 40, metadata: { orderId: 'A-1' }, ...body });
    const pk = merchant.keys.test.publishable;
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: card });
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } });
    expect(res.status).toBe(200);
    return { session: s, paymentId: res.json.paymentResult.id as number };
  }
  return {
    t,
    clock,
    settings,
    receiver: receivers.start,
    deliver: () => deliverDueWebhooks(t.database.db, clock, settings),
    configure,
    /** The configuration's delivery log, as the API shows it to the merchant's test key. */
    deliveries: async (merchant: MerchantCredentials, configId: number, query = '') =>
      (await t.call('GET', `/v1/WebhookConfiguration/${configId}/deliveries${query}`, { key: merchant.keys.test.secret })).json.data as any[],
    paidSession,
  };
}

/** A test-mode `payment.succeeded` of the merchant, written as a state change writes it (this process is told). */
export const paymentEvent = (db: Db, clock: Clock, merchantId: number, n: number) =>
  writeEvent(db, clock, {
    tenant: { merchantId, livemode: false },
    type: 'payment.succeeded',
    subject: { kind: 'test', id: `test_${n}`, eventType: 'payment.succeeded', live: false, created_at: clock.now() },
  });
/** A configuration's deliveries, oldest first. */
export const deliveriesOf = (db: Db, configurationId: number) =>
  db.selectFrom('webhook_deliveries').selectAll().where('configuration_id', '=', configurationId).orderBy('seq').execute();
/** A delivery's attempts, oldest first. */
export const attemptsOf = (db: Db, deliveryId: string) =>
  db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();

/** How long an attempt may take in the restart tests; a process killed while sending holds its deliveries this long, plus 15 s. */
export const RESTART_TIMEOUT_MS = 5000;
/**
 * The restart tests' receiver answers each request this late (a slow receiver, simulated; well within
 * the timeout): a process stopped at the first arrival has attempts under way and none answered.
 */
const ANSWER_MS = 1000;

/**
 * Till (`server/main.ts`, pg-boss and all) in child processes on one database of the file's, each
 * delivering what the outbox holds to a slow HTTPS receiver on loopback. Children still running
 * are killed after the file's last test.
 */
export function useDeliveringTills() {
  let database: Awaited<ReturnType<typeof processDatabase>>;
  let env: NodeJS.ProcessEnv;
  let receiver: Receiver;
  const running = new Map<ChildProcess, Running>();
  beforeAll(async () => {
    database = await processDatabase('restart');
    env = { ...process.env, ...database.env, LOG_LEVEL: 'error', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true', TILL_WEBHOOK_TIMEOUT_MS: String(RESTART_TIMEOUT_MS) };
    if (!usingPostgres) delete env.DATABASE_URL;
    receiver = await startReceiver((_n, _req, res) => {
      setTimeout(() => {
        res.statusCode = 200;
        res.end('{"ok":true}');
      }, ANSWER_MS);
      return 'hang';
    });
  });
  afterAll(async () => {
    for (const till of running.values()) {
      till.child.kill('SIGKILL');
      await till.exited;
    }
    await receiver?.close();
    await database?.drop();
  });

  /** Which of `events` have reached the receiver (a repeat counts once: receivers de-duplicate on id). */
  const delivered = (events: Set<string>) => new Set(receiver.received.map((h) => h.json?.id as string).filter((id) => events.has(id)));
  return {
    delivered,
    /**
     * A new merchant's endpoint and a backlog of `count` events for it, written in this process,
     * where no job runs (nothing is delivered yet, however slow the machine): the events' ids.
     */
    async backlog(count: number): Promise<Set<string>> {
      const db = await database.open();
      try {
        const { merchant } = await createMerchant(db.db, systemClock, { name: `Backlog ${Date.now()}` });
        const owner = { merchantId: merchant.id };
        await createConfiguration(db.db, systemClock, { allowLoopback: true }, owner, { sandboxUrl: receiver.url, subscribedEvents: ['payment.succeeded'] });
        const ids = await db.db.transaction().execute(async (trx) => {
          const written: string[] = [];
          for (let n = 0; n < count; n++) written.push(await paymentEvent(trx, systemClock, merchant.id, n));
          return written;
        });
        return new Set(ids);
      } finally {
        await database.release();
      }
    },
    /** Starts Till on the database; resolves once it listens. */
    async start(): Promise<Till> {
      const till = spawnTill({ ...env, PORT: '0' });
      running.set(till.child, till);
      return mustListen(till);
    },
    async stop(till: Running, signal: NodeJS.Signals) {
      till.child.kill(signal);
      await till.exited;
      running.delete(till.child);
    },
    /** Resolves once no delivery is held by a worker (a killed process's holds have passed). PostgreSQL only: it reads the database while Till may run. */
    async holdsPassed() {
      const db = await database.open();
      await expect
        .poll(async () => (await db.db.selectFrom('webhook_deliveries').select('id').where('locked_until', '>', new Date()).execute()).length, {
          timeout: RESTART_TIMEOUT_MS + 30_000,
          interval: 250,
        })
        .toBe(0);
    },
  };
}
