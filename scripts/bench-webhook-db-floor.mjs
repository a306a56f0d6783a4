// The webhook bench's floor with Till's database work (issue 37), a program of its own: what one
// bare process delivers when it does what a durable delivery must do in the database, in the
// statements Till uses, and nothing else (no framework, no job queue, no logging, no tracing).
//
// - Fan-out, one transaction per batch of up to 500 events (server/domain/webhooks/fan-out.ts):
//   the advisory lock, the outbox claim (`FOR UPDATE SKIP LOCKED`), the merchant's enabled
//   configurations, one multi-row INSERT of the deliveries, the events marked dispatched. It does
//   not read sandbox clocks, sessions or links: the bench's outbox case has none.
// - Claim, up to 100 deliveries a statement (server/jobs/attempt-pipeline.ts): held with
//   `locked_until`, joined to their events.
// - Send, 64 at once with undici (Till's client), signed and with Till's headers, to each
//   delivery's URL; the body rendered at the fan-out from the event's data.
// - Record, up to 200 attempts a statement: the deliveries' new state and their attempt-log rows
//   (delivery.repository.ts's `recordAttemptRows`, the same SQL).
//
// Environment: DATABASE_URL. Prints READY once connected; stops on SIGTERM.
import crypto from 'node:crypto';
import pg from 'pg';
import { Agent, request } from 'undici';

const EVENT_BATCH = 500;
const CLAIM_BATCH = 100;
const RECORD_BATCH = 200;
const AT_ONCE = 64;
const HOLD_MS = 60_000;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const agent = new Agent({ connections: AT_ONCE, keepAliveTimeout: 30_000, connect: { rejectUnauthorized: false } });
const bodies = new Map(); // delivery id -> { body, eventId, type, secret }
const claimed = []; // deliveries claimed, waiting to be sent
const finished = []; // attempts made, waiting to be recorded
let sending = 0;
let recording = false;
let stopping = false;

const deliveryId = () => `whd_${crypto.randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24)}`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One fan-out batch in one transaction; answers the new deliveries' ids. */
async function fanOut() {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('events:fan-out'))`);
    const { rows: events } = await c.query('SELECT * FROM events WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED', [EVENT_BATCH]);
    if (events.length === 0) {
      await c.query('COMMIT');
      return [];
    }
    const { rows: configurations } = await c.query(
      'SELECT * FROM webhook_configurations WHERE merchant_id = ANY($1) AND enabled = true ORDER BY id FOR KEY SHARE',
      [[...new Set(events.map((e) => e.merchant_id))]],
    );
    const now = new Date();
    const rows = [];
    for (const e of events)
      for (const conf of configurations) {
        if (conf.merchant_id !== e.merchant_id || !conf.sandbox_url) continue;
        const id = deliveryId();
        const body = `{"id":"${e.id}","object":"event","type":"${e.type}","apiVersion":"${e.api_version}","created":"${e.created_at.toISOString()}","livemode":false,"data":${JSON.stringify(e.data)}}`;
        bodies.set(id, { body, eventId: e.id, type: e.type, secret: conf.sandbox_secret });
        rows.push([id, e.merchant_id, false, e.id, e.type, 'pending', now, now, now, conf.id, null, conf.sandbox_url]);
      }
    if (rows.length > 0) {
      const values = rows.map((_, r) => `(${Array.from({ length: 12 }, (_, i) => `$${r * 12 + i + 1}`).join(', ')})`).join(', ');
      await c.query(
        `INSERT INTO webhook_deliveries (id, merchant_id, livemode, event_id, event_type, status, next_attempt_at, created_at, updated_at, configuration_id, session_id, url) VALUES ${values}`,
        rows.flat(),
      );
    }
    await c.query('UPDATE events SET dispatched_at = $1 WHERE id = ANY($2)', [now, events.map((e) => e.id)]);
    await c.query('COMMIT');
    return rows.map((r) => r[0]);
  } catch (error) {
    await c.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    c.release();
  }
}

/** Claims deliveries (held until HOLD_MS from now), with what their attempts need. */
async function claim(ids) {
  const now = new Date();
  const { rows } = await pool.query(
    `WITH claimed AS (
       UPDATE webhook_deliveries SET locked_until = $1
       WHERE id = ANY($2) AND status IN ('pending', 'failed') AND next_attempt_at <= $3 AND (locked_until IS NULL OR locked_until <= $3)
       RETURNING *)
     SELECT d.id, d.url, d.automatic_attempts, e.created_at FROM claimed d JOIN events e ON e.id = d.event_id`,
    [new Date(now.getTime() + HOLD_MS), ids, now],
  );
  return rows;
}

/** Sends one claimed delivery; queues its attempt for the record. */
async function send(d) {
  const { body, eventId, type, secret } = bodies.get(d.id);
  const ts = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Till-Webhooks/1.0',
    'x-webhook-signature': crypto.createHmac('sha256', secret).update(body).digest('hex'),
    'x-webhook-id': eventId,
    'x-webhook-event': type,
    'x-webhook-timestamp': String(ts),
    'webhook-id': eventId,
    'webhook-timestamp': String(ts),
    'webhook-signature': `v1,${crypto.createHmac('sha256', secret).update(`${eventId}.${ts}.${body}`).digest('base64')}`,
  };
  const started = performance.now();
  const attemptedAt = new Date();
  let status = null;
  let snippet = null;
  let error = null;
  try {
    const res = await request(d.url, { method: 'POST', dispatcher: agent, headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 });
    status = res.statusCode;
    snippet = (await res.body.text()).slice(0, 1000);
  } catch {
    error = 'connection_error';
  }
  const ok = status !== null && status >= 200 && status < 300;
  bodies.delete(d.id);
  finished.push({
    id: d.id,
    status: ok ? 'succeeded' : 'failed',
    nextAttemptAt: ok ? null : new Date(Date.now() + 60_000),
    automaticAttempts: d.automatic_attempts + 1,
    url: d.url,
    attemptedAt,
    httpStatus: status,
    durationMs: Math.round(performance.now() - started),
    snippet,
    error,
    headers: JSON.stringify({ 'content-type': headers['content-type'], 'webhook-id': eventId }),
  });
}

/** Records up to RECORD_BATCH attempts in one statement, one record at a time. */
async function record() {
  if (recording || finished.length === 0) return;
  recording = true;
  try {
    while (finished.length > 0) {
      const batch = finished.splice(0, RECORD_BATCH);
      const values = batch
        .map((_, r) => {
          const p = (i) => `$${r * 11 + i}`;
          return `(${p(1)}::text, ${p(2)}::text, ${p(3)}::timestamptz, ${p(4)}::integer, ${p(5)}::text, ${p(6)}::timestamptz, ${p(7)}::integer, ${p(8)}::integer, ${p(9)}::text, ${p(10)}::text, ${p(11)}::jsonb)`;
        })
        .join(', ');
      await pool.query(
        `WITH v (id, status, next_attempt_at, automatic_attempts, url, attempted_at, http_status, duration_ms, response_snippet, error, request_headers) AS (VALUES ${values}),
         updated AS (
           UPDATE webhook_deliveries d
           SET status = v.status, next_attempt_at = v.next_attempt_at, automatic_attempts = v.automatic_attempts, attempt_count = d.attempt_count + 1, url = v.url, locked_until = NULL, updated_at = v.attempted_at
           FROM v WHERE d.id = v.id
           RETURNING d.*
         ),
         logged AS (
           INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, url, http_status, duration_ms, response_snippet, error, request_headers)
           SELECT v.id, v.attempted_at, v.url, v.http_status, v.duration_ms, v.response_snippet, v.error, v.request_headers FROM v JOIN updated u ON u.id = v.id
         )
         SELECT * FROM updated`,
        batch.flatMap((a) => [
          a.id,
          a.status,
          a.nextAttemptAt,
          a.automaticAttempts,
          a.url,
          a.attemptedAt,
          a.httpStatus,
          a.durationMs,
          a.snippet,
          a.error,
          a.headers,
        ]),
      );
    }
  } finally {
    recording = false;
  }
}

/** Starts sends while fewer than AT_ONCE are in flight. */
function pump() {
  while (sending < AT_ONCE && claimed.length > 0) {
    sending++;
    void send(claimed.shift())
      .catch((error) => console.error(`send: ${error.message}`))
      .finally(() => {
        sending--;
        pump();
        void record().catch((error) => console.error(`record: ${error.message}`));
      });
  }
}

/** Fans out and claims while anything is written, as far ahead of the sends as one event batch. */
async function run() {
  while (!stopping) {
    if (claimed.length >= EVENT_BATCH) {
      await sleep(1);
      continue;
    }
    const ids = await fanOut();
    if (ids.length === 0) {
      await sleep(5);
      continue;
    }
    for (let i = 0; i < ids.length; i += CLAIM_BATCH) {
      claimed.push(...(await claim(ids.slice(i, i + CLAIM_BATCH))));
      pump();
    }
  }
}

process.on('SIGTERM', () => {
  stopping = true;
  setTimeout(async () => {
    await agent.close().catch(() => {});
    await pool.end().catch(() => {});
    process.exit(0);
  }, 200);
});
await pool.query('SELECT 1');
console.log('READY');
run().catch((error) => {
  console.error(`the webhook database floor failed: ${error.stack}`);
  process.exit(1);
});
