// The bench's floor on PostgreSQL (the pg-floor target of scripts/bench-targets.ts): bare node:http and node-postgres sending
// the statements Till sends for each measured operation, in the same round trips, with Till's own
// economies (pipeline mode, prepared statements, begin and commit sent with a statement, the
// shared statements of one turn in one write), and nothing else: no Express, no validation, no
// authentication, no Kysely, no views. What Till reaches is then a share of what this machine
// can do with the same database work. Its SQL is Till's, as logged by PostgreSQL
// (`log_statement = all`) on 2026-11-26; the database is migrated by Till.
//
// With FLOOR_REQUEST_LOG=1 (the pg-floor-logged target) it also records every request as Till's
// request log does at the least: one row per request (the same columns, both bodies as JSON text),
// queued and written by Till's own batch statement (`unnest` of one array per column, 200 rows or
// every 250 ms), without Till's redaction or capture. What that costs the floor is what writing a
// request log into the same PostgreSQL costs this machine, whoever writes it.
//
// Environment: DATABASE_URL, MERCHANT_ID, PLAN_ID, FLOOR_REQUEST_LOG. Prints PORT=<port> once listening.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

const merchantId = Number(process.env.MERCHANT_ID);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, pipeline: true });
const shared = await pool.connect();

const PLAN = 'select * from "plans" where "merchant_id" = $1 and "id" = $2';
const CUSTOMER =
  'insert into "customers" ("merchant_id", "email", "name", "phone", "external_id", "metadata", "created_at") select cast($1 as integer) as "merchant_id", cast($2 as text) as "email", cast($3 as text) as "name", cast($4 as text) as "phone", cast($5 as text) as "external_id", cast($6 as jsonb) as "metadata", cast($7 as timestamptz) as "created_at" where not exists (select 1 as "found" from "customers" where "merchant_id" = $8 and lower("email") = $9) on conflict do nothing returning *';
const CLAIM =
  'insert into "idempotency_keys" ("merchant_id", "livemode", "key", "request_hash", "state", "locked_at", "created_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("merchant_id", "livemode", "key") do nothing returning "key"';
const SESSION_COLUMNS =
  'id merchant_id livemode client_secret_hash status amount currency mode payment_type payment_status capture_method url success_url cancel_url customer_email customer_first_name customer_last_name customer_phone notification_url notification_secret line_items metadata allow_saved_cards enable_click_to_pay invoice_id invoice_reference payment_option_group_id subscription_plan_id client_id trial_days description subscription_id payment_id created_at expires_at completed_at cancelled_at expired_at pays_invoice client_secret'.split(
    ' ',
  );
const SESSION = `insert into "checkout_sessions" (${[...SESSION_COLUMNS, 'notify_customer', 'send_receipt'].map((c) => `"${c}"`).join(', ')}) values (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}, (select "message_checkout_customers" from "merchants" where "id" = $${SESSION_COLUMNS.length + 1}), (select "send_checkout_receipts" from "merchants" where "id" = $${SESSION_COLUMNS.length + 2})) returning *`;
const MARK = 'update "idempotency_keys" set "state" = $1 where ("merchant_id" = $2 AND "livemode" = $3) and "key" = $4 and "state" = $5';
const STORE =
  'update "idempotency_keys" set "state" = $1, "response_status" = $2, "response_headers" = $3, "response_body" = $4 where ("merchant_id" = $5 AND "livemode" = $6) and "key" = $7';

const LOG_COLUMNS = [
  ['id', 'text'],
  ['merchant_id', 'int4'],
  ['livemode', 'bool'],
  ['method', 'text'],
  ['path', 'text'],
  ['operation_id', 'text'],
  ['status', 'int4'],
  ['duration_ms', 'float8'],
  ['request_id', 'text'],
  ['idempotency_key', 'text'],
  ['key_prefix', 'text'],
  ['client_address', 'text'],
  ['request_body', 'text'],
  ['response_body', 'text'],
  ['created_at', 'timestamptz'],
];
const LOG_INSERT = `insert into "request_logs" (${LOG_COLUMNS.map(([c]) => `"${c}"`).join(', ')}) SELECT * FROM unnest(${LOG_COLUMNS.map(([, t], i) => `$${i + 1}::${t}[]`).join(', ')})`;
const logging = process.env.FLOOR_REQUEST_LOG === '1';
let logQueue = [];
let logTimer;

/** Writes the queued log rows in one statement. */
function writeLogs() {
  logTimer = undefined;
  const batch = logQueue;
  logQueue = [];
  if (batch.length === 0) return;
  const ids = randomBytes(18 * batch.length).toString('base64url');
  const columns = LOG_COLUMNS.map(([name]) => batch.map((row, i) => (name === 'id' ? `rl_${ids.slice(i * 24, i * 24 + 24)}` : row[name])));
  pool.query({ name: 'log', text: LOG_INSERT, values: columns }).catch((error) => console.error(`request log: ${error.message}`));
}

/** Queues one request's log row (FLOOR_REQUEST_LOG=1). */
function logRequest(req, status, started, requestBody, responseText) {
  if (!logging) return;
  logQueue.push({
    merchant_id: merchantId,
    livemode: false,
    method: req.method,
    path: req.url,
    operation_id: req.method === 'GET' ? 'getPlan' : req.url.startsWith('/v1/checkout-sessions') ? 'createCheckoutSession' : 'createCustomer',
    status,
    duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
    request_id: randomBytes(12).toString('hex'),
    idempotency_key: req.headers['idempotency-key'] ?? null,
    key_prefix: 'sk_test_floor',
    client_address: req.socket.remoteAddress ?? null,
    request_body: requestBody ?? null,
    response_body: responseText,
    created_at: new Date(),
  });
  if (logQueue.length >= 200) writeLogs();
  else logTimer ??= setTimeout(writeLogs, 250);
}

/** A statement on the shared connection; those of one turn of the event loop leave in one write. */
let corked = false;
function sharedQuery(name, text, values) {
  const stream = shared.connection.stream;
  if (!corked) {
    corked = true;
    stream.cork();
    setImmediate(() => {
      corked = false;
      stream.uncork();
    });
  }
  return shared.query({ name, text, values });
}

/** Statements sent in one write on a connection of their own; answers their results. */
async function together(client, queries) {
  const stream = client.connection.stream;
  stream.cork();
  const sent = queries.map((q) => client.query(q));
  stream.uncork();
  return Promise.all(sent);
}

async function createSession(input, key, body) {
  const now = new Date();
  await sharedQuery('claim', CLAIM, [merchantId, false, key, createHash('sha256').update(body).digest('hex'), 'in_flight', now, now]);
  const id = `cs_test_${randomBytes(18).toString('base64url')}`;
  const row = {
    id,
    merchant_id: merchantId,
    livemode: false,
    client_secret_hash: createHash('sha256').update(id).digest('hex'),
    status: 'created',
    amount: String(input.amount),
    currency: input.currency,
    mode: input.mode,
    payment_type: 'one_time',
    payment_status: 'unpaid',
    capture_method: 'automatic',
    line_items: '[]',
    metadata: '{}',
    allow_saved_cards: false,
    enable_click_to_pay: false,
    created_at: now,
    expires_at: new Date(now.getTime() + 30 * 60_000),
    pays_invoice: false,
  };
  const client = await pool.connect();
  let session;
  try {
    [
      ,
      {
        rows: [session],
      },
    ] = await together(client, ['begin', { name: 'session', text: SESSION, values: [...SESSION_COLUMNS.map((c) => row[c] ?? null), merchantId, merchantId] }]);
    await together(client, [{ name: 'mark', text: MARK, values: ['committed', merchantId, false, key, 'in_flight'] }, 'commit']);
  } finally {
    client.release();
  }
  const answer = JSON.stringify({
    id: session.id,
    object: 'checkout_session',
    status: 'open',
    amount: Number(session.amount),
    currency: session.currency,
    mode: session.mode,
    clientSecret: `${session.id}_secret`,
    expiresAt: session.expires_at,
    createdAt: session.created_at,
  });
  await sharedQuery('store', STORE, ['done', 201, '{"content-type":"application/json; charset=utf-8"}', answer, merchantId, false, key]);
  return answer;
}

async function createCustomer(input) {
  const values = [merchantId, input.email, input.name ?? null, null, null, '{}', new Date(), merchantId, input.email.toLowerCase()];
  const { rows } = await sharedQuery('customer', CUSTOMER, values);
  return JSON.stringify({ success: true, errorCode: null, errorMessage: null, data: rows[0] });
}

const server = http.createServer((req, res) => {
  const started = process.hrtime.bigint();
  let requestBody;
  const json = (status, text) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
    logRequest(req, status, started, requestBody, text);
  };
  const failed = (error) => json(500, JSON.stringify({ error: String(error?.message ?? error) }));
  if (req.method === 'GET') {
    const id = Number(req.url.split('/').pop());
    sharedQuery('plan', PLAN, [merchantId, id]).then(
      ({ rows }) => json(rows.length ? 200 : 404, JSON.stringify({ success: true, errorCode: null, errorMessage: null, data: rows[0] ?? null })),
      failed,
    );
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString();
    requestBody = body;
    const input = JSON.parse(body);
    const answer = req.url.startsWith('/v1/checkout-sessions') ? createSession(input, String(req.headers['idempotency-key']), body) : createCustomer(input);
    answer.then((text) => json(201, text), failed);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`PORT=${server.address().port}`));
process.on('SIGTERM', () => {
  if (logTimer) clearTimeout(logTimer);
  server.close(() => void pool.end().then(() => process.exit(0)));
  server.closeAllConnections();
  shared.release();
});
