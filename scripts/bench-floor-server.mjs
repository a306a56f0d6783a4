// The bench's floor on PostgreSQL (the pg-floor target of scripts/bench-targets.ts): bare node:http and node-postgres sending
// the statements Till sends for each measured operation, in the same round trips, with Till's own
// economies (pipeline mode, prepared statements, begin and commit sent with a statement, the
// shared statements of one turn in one write), and nothing else: no Express, no validation, no
// authentication, no Kysely, no views. What Till reaches is then a share of what this machine
// can do with the same database work. Its SQL is Till's (scripts/bench-floor-statements.mjs, shared
// with the PGlite floor); the database is migrated by Till.
//
// With FLOOR_REQUEST_LOG=1 (the pg-floor-logged target) it also records every request as Till's
// request log does at the least: one row per request (the same columns, both bodies as JSON text),
// queued and written by Till's own batch statement (`unnest` of one array per column, 200 rows or
// every 250 ms), without Till's redaction or capture. What that costs the floor is what writing a
// request log into the same PostgreSQL costs this machine, whoever writes it.
//
// With FLOOR_EXPRESS=1 (the express-floor target) the same work is served by an Express app, as an
// Express server is written without Till: a route per operation (`app.get`, `app.post`),
// `express.json()` reading the bodies, `res.status().type().send()` answering. What it loses to the
// floor is what Express itself costs a request on this machine: the least any Express server pays,
// Till's included.
//
// Environment: DATABASE_URL, MERCHANT_ID, PLAN_ID, FLOOR_REQUEST_LOG, FLOOR_EXPRESS. Prints PORT=<port> once listening.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import pg from 'pg';
import * as till from './bench-floor-statements.mjs';

const merchantId = Number(process.env.MERCHANT_ID);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, pipeline: true });
const shared = await pool.connect();

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
  await sharedQuery('claim', till.CLAIM, till.claimValues(merchantId, key, body, now));
  const client = await pool.connect();
  let session;
  try {
    [
      ,
      {
        rows: [session],
      },
    ] = await together(client, ['begin', { name: 'session', text: till.SESSION, values: till.sessionValues(merchantId, input, now) }]);
    await together(client, [{ name: 'mark', text: till.MARK, values: till.markValues(merchantId, key) }, 'commit']);
  } finally {
    client.release();
  }
  const answer = till.sessionAnswer(session);
  await sharedQuery('store', till.STORE, till.storeValues(merchantId, key, answer));
  return answer;
}

async function createCustomer(input) {
  const { rows } = await sharedQuery('customer', till.CUSTOMER, till.customerValues(merchantId, input));
  return till.envelope(rows[0]);
}

/** The floor's own server: node:http, each operation by hand. */
const bare = (req, res) => {
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
    sharedQuery('plan', till.PLAN, [merchantId, id]).then(({ rows }) => json(rows.length ? 200 : 404, till.envelope(rows[0])), failed);
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
};

/** The same operations as an Express app (FLOOR_EXPRESS=1). */
function expressApp() {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const answer = (res, status) => (text) => res.status(status).type('application/json').send(text);
  app.get('/v1/plans/:id', (req, res, next) => {
    sharedQuery('plan', till.PLAN, [merchantId, Number(req.params.id)]).then(({ rows }) => answer(res, rows.length ? 200 : 404)(till.envelope(rows[0])), next);
  });
  app.post('/v1/customers', express.json(), (req, res, next) => {
    createCustomer(req.body).then(answer(res, 201), next);
  });
  // The claim hashes the body as it came: kept as read.
  const keepBody = express.json({ verify: (req, _res, buffer) => (req.rawBody = buffer.toString()) });
  app.post('/v1/checkout-sessions', keepBody, (req, res, next) => {
    createSession(req.body, String(req.get('idempotency-key')), req.rawBody).then(answer(res, 201), next);
  });
  return app;
}

const server = process.env.FLOOR_EXPRESS === '1' ? http.createServer(expressApp()) : http.createServer(bare);
server.listen(0, '127.0.0.1', () => console.log(`PORT=${server.address().port}`));
process.on('SIGTERM', () => {
  if (logTimer) clearTimeout(logTimer);
  server.close(() => void pool.end().then(() => process.exit(0)));
  server.closeAllConnections();
  shared.release();
});
