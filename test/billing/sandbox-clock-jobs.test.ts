// The background jobs follow each merchant's sandbox clock (issue #5, rule 7): the job queue runs
// due work by the base clock for live mode and for merchants that never advanced, and by each
// advanced merchant's own test clock for its test mode. The base clock is a ManualClock the tests
// move, and each puts it back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { createLogger } from '../../server/log.js';
import { type Jobs, startJobs } from '../../server/jobs/index.js';
import { createTestSession, useTestServer } from '../support/server.js';
import { receiverPool } from '../support/webhook-receiver.js';
import { SANDBOX_CLOCK_CONFIG, sandboxClock, secondsAfter } from '../support/billing.js';

const start = new Date(Math.floor(Date.now() / 1000) * 1000);
const clock = new ManualClock(start);
const t = useTestServer({ clock, config: SANDBOX_CLOCK_CONFIG });
const receivers = receiverPool();
afterAll(() => receivers.closeAll());

const receiver = receivers.start;
const { advance, configure, deliveries } = sandboxClock(t);

describe('the background jobs follow each sandbox clock', () => {
  let jobs: Jobs;
  beforeAll(async () => {
    jobs = await startJobs(t.database, clock, createLogger('silent'), SANDBOX_CLOCK_CONFIG);
  });
  afterAll(async () => {
    await jobs?.stop();
  });

  it("expire a session when its merchant's test time passes its expiry, by that merchant's clock, not before", async () => {
    const m = await t.newMerchant();
    await advance(m, 86_400);
    const s = await createTestSession(t, m);
    const expiresIn = secondsAfter(s.created.createdAt, s.created.expiresAt);
    const base = clock.now();
    try {
      clock.advance(expiresIn - 1);
      await jobs.runNow('sessionExpiry');
      expect((await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: m.keys.test.secret })).json.status).toBe('created');
      clock.advance(1);
      await jobs.runNow('sessionExpiry');
      const after = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: m.keys.test.secret });
      expect(after.json.status).toBe('expired');
    } finally {
      clock.set(base);
    }
  });

  it('retry a failed delivery of an advanced merchant when its test time reaches the retry, by the minutely sweep', async () => {
    const m = await t.newMerchant();
    await advance(m, 86_400);
    const r = await receiver((n) => (n === 0 ? 503 : 200));
    const c = await configure(m, { sandboxUrl: r.url });
    const sent = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: m.keys.test.secret });
    expect(sent.json.status).toBe('failed');
    const base = clock.now();
    try {
      clock.advance(59);
      await jobs.runNow('webhookSweep');
      expect(r.received).toHaveLength(1);
      clock.advance(1);
      await jobs.runNow('webhookSweep');
      expect(r.received).toHaveLength(2);
      const [d] = await deliveries(m, c.json.id);
      expect(d.status).toBe('succeeded');
      expect(d.attempts.map((a: any) => secondsAfter(start, a.attemptedAt))).toEqual([86_400, 86_460]);
    } finally {
      clock.set(base);
    }
  });

  it('still expire the test sessions of merchants that never advanced, and live sessions, by the base clock', async () => {
    const advanced = await t.newMerchant();
    await advance(advanced, 60);
    const m = await t.newMerchant();
    const test = await createTestSession(t, m);
    const live = await createTestSession(t, m, true);
    const base = clock.now();
    try {
      clock.advance(secondsAfter(test.created.createdAt, test.created.expiresAt));
      await jobs.runNow('sessionExpiry');
      const rows = await t.database.db.selectFrom('checkout_sessions').select(['id', 'status']).where('id', 'in', [test.id, live.id]).execute();
      expect(rows.map((r) => r.status)).toEqual(['expired', 'expired']);
    } finally {
      clock.set(base);
    }
  });
});
