// Faults (PostgreSQL): the database connection is cut in the middle of a request. The request's
// transaction rolls back, so no half-done payment, refund or event is left; the caller gets 503
// `service_unavailable` in the operation's error shape with Retry-After, a retry succeeds once,
// and the server keeps answering after every connection it had was cut.
//
// A request is stopped at a known point by a second session holding a lock the request needs late
// in its transaction (on `events`, written after the payment, the invoice and the ledger), then
// its backend is terminated with pg_terminate_backend while it waits.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiResponse, createTestSession, useTestServer } from '../support/server.js';

const t = useTestServer();
let saboteur: pg.Client;
beforeAll(async () => {
  saboteur = new pg.Client({ connectionString: t.databaseUrl });
  await saboteur.connect();
});
afterAll(async () => {
  await saboteur?.end();
});

const sk = () => t.merchantA.keys.test.secret;
const count = async (sql: string, values: unknown[]) => Number((await saboteur.query(sql, values)).rows[0].n);

/**
 * Backends of this database other than the saboteur's, waiting on a lock. The saboteur asks inside
 * its transaction, where PostgreSQL keeps the first snapshot of pg_stat_activity until the end:
 * without clearing it, a first look taken before the request waited would be all it ever saw.
 */
async function waitingBackends(): Promise<number[]> {
  await saboteur.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await saboteur.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
  );
  return rows.map((r) => r.pid as number);
}

/** Runs `request` while `events` is locked against writes, and cuts the connection of the request once it waits there. */
async function cutWhileWritingEvents(request: () => Promise<ApiResponse>): Promise<ApiResponse> {
  await saboteur.query('BEGIN');
  await saboteur.query('LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE');
  const answer = request();
  try {
    const waiting = await vi.waitFor(
      async () => {
        const found = await waitingBackends();
        if (found.length === 0) throw new Error('the request has not reached the lock yet');
        return found;
      },
      { timeout: 10_000, interval: 25 },
    );
    expect(waiting.length, 'the request reached the lock').toBe(1);
    await saboteur.query('SELECT pg_terminate_backend($1)', [waiting[0]]);
  } finally {
    await saboteur.query('ROLLBACK');
  }
  return answer;
}

async function tokenizedSession() {
  const s = await createTestSession(t, t.merchantA);
  const client = { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret };
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
    ...client,
    body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123' },
  });
  expect(pm.status).toBe(201);
  return { session: s, client, paymentMethodId: pm.json.id as string };
}

function expectServiceUnavailable(res: ApiResponse) {
  expect(res.status, res.text).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  // The general shape, or the envelope on the operations that document it (plans).
  if ('success' in res.json)
    expect(res.json).toMatchObject({ success: false, errorCode: 'service_unavailable', data: { type: 'server_error', retryable: true } });
  else expect(res.json.error).toMatchObject({ type: 'server_error', code: 'service_unavailable', retryable: true });
  expect(res.text).not.toMatch(/terminat|SQLSTATE|SELECT|INSERT|\bat \S+:\d+/i);
}

describe('the database connection cut during a request', () => {
  it('a confirm leaves no payment, invoice payment, ledger entry or event; the retry pays once', async () => {
    const { session, client, paymentMethodId } = await tokenizedSession();
    const eventsBefore = await count('SELECT count(*) AS n FROM events WHERE session_id = $1', [session.id]);
    const confirm = () =>
      t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, {
        ...client,
        body: { paymentMethodId },
        headers: { 'idempotency-key': `cut-${session.id}` },
      });
    expectServiceUnavailable(await cutWhileWritingEvents(confirm));

    expect(await count('SELECT count(*) AS n FROM payments WHERE session_id = $1', [session.id])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM events WHERE session_id = $1', [session.id])).toBe(eventsBefore);
    expect(await count(`SELECT count(*) AS n FROM invoices WHERE session_id = $1 AND status = 'paid'`, [session.id])).toBe(0);
    const read = await t.call('GET', `/v1/checkout-sessions/${session.id}`, { key: sk() });
    expect(read.json).toMatchObject({ status: 'created' });
    expect(read.json.paymentResult ?? null).toBeNull();

    const retry = await confirm();
    expect(retry.status, retry.text).toBe(200);
    expect(await count('SELECT count(*) AS n FROM payments WHERE session_id = $1', [session.id])).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM events WHERE session_id = $1 AND type = 'payment.succeeded'`, [session.id])).toBe(1);
  });

  it('a refund leaves no refund, ledger entry or event; the retry refunds once', async () => {
    const { session, client, paymentMethodId } = await tokenizedSession();
    const paid = await t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, { ...client, body: { paymentMethodId } });
    expect(paid.status).toBe(200);
    const entries = () => count('SELECT count(*) AS n FROM ledger_entries l JOIN payments p ON p.id = l.payment_id WHERE p.session_id = $1', [session.id]);
    const entriesBefore = await entries();
    const refund = () =>
      t.call('POST', `/v1/checkout-sessions/${session.id}/refund`, {
        key: sk(),
        body: { amount: 10 },
        headers: { 'idempotency-key': `cut-refund-${session.id}` },
      });
    expectServiceUnavailable(await cutWhileWritingEvents(refund));

    expect(await count('SELECT count(*) AS n FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE p.session_id = $1', [session.id])).toBe(0);
    expect(await entries()).toBe(entriesBefore);
    expect(await count(`SELECT count(*) AS n FROM events WHERE session_id = $1 AND type = 'payment.refunded'`, [session.id])).toBe(0);

    const retry = await refund();
    expect(retry.status, retry.text).toBe(200);
    expect(await count('SELECT count(*) AS n FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE p.session_id = $1', [session.id])).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM events WHERE session_id = $1 AND type = 'payment.refunded'`, [session.id])).toBe(1);
  });

  it('keeps answering after every connection it had was cut', async () => {
    const terminated = await saboteur.query(
      'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    expect(Number(terminated.rows[0].n)).toBeGreaterThan(0);
    const answers: number[] = [];
    for (let i = 0; i < 10 && answers.at(-1) !== 200; i++) {
      const res = await t.call('GET', '/v1/plans', { key: sk() });
      if (res.status !== 200) expectServiceUnavailable(res);
      answers.push(res.status);
    }
    expect(answers.at(-1)).toBe(200);
    const created = await t.call('POST', '/v1/customers', { key: sk(), body: { email: 'after-the-cut@example.com', name: 'After' } });
    expect(created.status, created.text).toBe(201);
  });
});
