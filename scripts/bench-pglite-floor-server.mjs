// The bench's floor on PGlite (the pglite-floor target of scripts/bench-targets.ts): bare node:http
// and PGlite, in this process, sending Till's own statements for each measured operation
// (scripts/bench-floor-statements.mjs), with Till's own economy on PGlite (each statement prepared
// once: dist/server/db/pglite-statements.js) and its one session taken in turn, as Till's Kysely
// dialect takes it (dist/server/db/pglite-dialect.js): a transaction from `begin` to `commit`,
// and the single statements (the plan, the customer, the claim and the store) that wait for one
// turn all in the next, in one exchange. Nothing else: no Express, validation, authentication,
// Kysely or views. What Till on PGlite reaches is then a share of what this machine can do with
// the same embedded database work.
//
// Environment: TILL_DATA_DIR (a data directory Till made, Till stopped), MERCHANT_ID. Prints
// PORT=<port> once listening.
import http from 'node:http';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { preparedStatements } from '../dist/server/db/pglite-statements.js';
import {
  CLAIM,
  claimValues,
  CUSTOMER,
  customerValues,
  envelope,
  MARK,
  markValues,
  PLAN,
  SESSION,
  sessionAnswer,
  sessionValues,
  STORE,
  storeValues,
} from './bench-floor-statements.mjs';

const merchantId = Number(process.env.MERCHANT_ID);
const pglite = await PGlite.create({ dataDir: path.join(process.env.TILL_DATA_DIR, 'pglite') });
const db = preparedStatements(pglite);

/** The one connection, taken in turn (first come, first served) and held for `work`. */
let turn = Promise.resolve();
function withConnection(work) {
  const done = turn.then(work);
  turn = done.then(
    () => undefined,
    () => undefined,
  );
  return done;
}

/** Single statements waiting for a turn of the session; all that wait go in the next one. */
let waiting = [];
function query(text, values) {
  return new Promise((resolve, reject) => {
    if (waiting.push({ text, values, resolve, reject }) > 1) return;
    void withConnection(
      () =>
        new Promise((sent) =>
          setImmediate(() => {
            const batch = waiting;
            waiting = [];
            db.queryMany(batch)
              .then(
                (answers) => batch.forEach((s, i) => (answers[i].error === undefined ? s.resolve(answers[i].result) : s.reject(answers[i].error))),
                (error) => batch.forEach((s) => s.reject(error)),
              )
              .finally(sent);
          }),
        ),
    );
  });
}

async function createSession(input, key, body) {
  const now = new Date();
  await query(CLAIM, claimValues(merchantId, key, body, now));
  const session = await withConnection(async () => {
    await db.query('begin');
    try {
      const { rows } = await db.query(SESSION, sessionValues(merchantId, input, now));
      await db.query(MARK, markValues(merchantId, key));
      await db.query('commit');
      return rows[0];
    } catch (error) {
      await db.query('rollback');
      throw error;
    }
  });
  const answer = sessionAnswer(session);
  await query(STORE, storeValues(merchantId, key, answer));
  return answer;
}

async function createCustomer(input) {
  const { rows } = await query(CUSTOMER, customerValues(merchantId, input));
  return envelope(rows[0]);
}

const server = http.createServer((req, res) => {
  const json = (status, text) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
  const failed = (error) => json(500, JSON.stringify({ error: String(error?.message ?? error) }));
  if (req.method === 'GET') {
    const id = Number(req.url.split('/').pop());
    query(PLAN, [merchantId, id]).then(({ rows }) => json(rows.length ? 200 : 404, envelope(rows[0])), failed);
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
