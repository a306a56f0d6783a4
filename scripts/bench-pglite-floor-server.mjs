// The bench's floor on PGlite (the pglite-floor target of scripts/bench-targets.ts): bare node:http
// and PGlite, in this process, sending Till's own statements for each measured operation
// (scripts/bench-floor-statements.mjs), with Till's own economy on PGlite (each statement prepared
// once: dist/server/db/pglite-statements.js) and its one session taken in turn by Till's own
// turns and batches (dist/server/db/pglite-dialect.js): a transaction from `begin` to `commit`,
// and the single statements (the plan, the customer, the claim and the store) that wait for one
// turn all in the next, in one exchange. Nothing else: no Express, validation, authentication,
// Kysely or views. What Till on PGlite reaches is then a share of what this machine can do with
// the same embedded database work.
//
// Environment: TILL_DATA_DIR (a data directory Till made, Till stopped), MERCHANT_ID. Prints
// PORT=<port> once listening.
import http from 'node:http';
import path from 'node:path';
import { createPglite } from '../dist/server/db/pglite-start.js';
import { SessionTurns, SharedBatches } from '../dist/server/db/pglite-dialect.js';
import { preparedStatements } from '../dist/server/db/pglite-statements.js';
import * as till from './bench-floor-statements.mjs';

const merchantId = Number(process.env.MERCHANT_ID);
const pglite = await createPglite({ dataDir: path.join(process.env.TILL_DATA_DIR, 'pglite') });
const db = preparedStatements(pglite);

// Till's own turns of the session, and its batches of the single statements that wait for one.
const turns = new SessionTurns();
const batches = new SharedBatches(turns, db);
const query = (text, values) => batches.run(text, values);

async function createSession(input, key, body) {
  const now = new Date();
  await query(till.CLAIM, till.claimValues(merchantId, key, body, now));
  const end = await turns.take();
  let session;
  try {
    await db.query('begin');
    session = (await db.query(till.SESSION, till.sessionValues(merchantId, input, now))).rows[0];
    await db.query(till.MARK, till.markValues(merchantId, key));
    await db.query('commit');
  } catch (error) {
    await db.query('rollback');
    throw error;
  } finally {
    end();
  }
  const answer = till.sessionAnswer(session);
  await query(till.STORE, till.storeValues(merchantId, key, answer));
  return answer;
}

async function createCustomer(input) {
  const { rows } = await query(till.CUSTOMER, till.customerValues(merchantId, input));
  return till.envelope(rows[0]);
}

const server = http.createServer((req, res) => {
  const json = (status, text) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
  const failed = (error) => json(500, JSON.stringify({ error: String(error?.message ?? error) }));
  if (req.method === 'GET') {
    const id = Number(req.url.split('/').pop());
    query(till.PLAN, [merchantId, id]).then(({ rows }) => json(rows.length ? 200 : 404, till.envelope(rows[0])), failed);
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString();
    const input = JSON.parse(body);
    const answer = req.url.startsWith('/v1/checkout-sessions') ? createSession(input, String(req.headers['idempotency-key']), body) : createCustomer(input);
    answer.then((text) => json(201, text), failed);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`PORT=${server.address().port}`));
process.on('SIGTERM', () => {
  server.close(() => void pglite.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
