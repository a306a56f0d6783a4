// What the bench's floors (scripts/bench-floor-server.mjs on PostgreSQL, scripts/bench-pglite-floor-
// server.mjs on PGlite) send and answer for each measured operation: Till's own statements, as
// PostgreSQL logged them (`log_statement = all`) on 2026-11-26, the values of one checkout session,
// and the answers' JSON. Each floor sends them in the round trips its database allows.
import { createHash, randomBytes } from 'node:crypto';

export const PLAN = 'select * from "plans" where "merchant_id" = $1 and "id" = $2';
export const CUSTOMER =
  'insert into "customers" ("merchant_id", "email", "name", "phone", "external_id", "metadata", "created_at") select cast($1 as integer) as "merchant_id", cast($2 as text) as "email", cast($3 as text) as "name", cast($4 as text) as "phone", cast($5 as text) as "external_id", cast($6 as jsonb) as "metadata", cast($7 as timestamptz) as "created_at" where not exists (select 1 as "found" from "customers" where "merchant_id" = $8 and lower("email") = $9) on conflict do nothing returning *';
export const CLAIM =
  'insert into "idempotency_keys" ("merchant_id", "livemode", "key", "request_hash", "state", "locked_at", "created_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("merchant_id", "livemode", "key") do nothing returning "key"';
const SESSION_COLUMNS =
  'id merchant_id livemode client_secret_hash status amount currency mode payment_type payment_status capture_method url success_url cancel_url customer_email customer_first_name customer_last_name customer_phone notification_url notification_secret line_items metadata allow_saved_cards enable_click_to_pay invoice_id invoice_reference payment_option_group_id subscription_plan_id client_id trial_days description subscription_id payment_id created_at expires_at completed_at cancelled_at expired_at pays_invoice client_secret'.split(
    ' ',
  );
export const SESSION = `insert into "checkout_sessions" (${[...SESSION_COLUMNS, 'notify_customer', 'send_receipt'].map((c) => `"${c}"`).join(', ')}) values (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}, (select "message_checkout_customers" from "merchants" where "id" = $${SESSION_COLUMNS.length + 1}), (select "send_checkout_receipts" from "merchants" where "id" = $${SESSION_COLUMNS.length + 2})) returning *`;
export const MARK = 'update "idempotency_keys" set "state" = $1 where ("merchant_id" = $2 AND "livemode" = $3) and "key" = $4 and "state" = $5';
export const STORE =
  'update "idempotency_keys" set "state" = $1, "response_status" = $2, "response_headers" = $3, "response_body" = $4 where ("merchant_id" = $5 AND "livemode" = $6) and "key" = $7';

/** The claim's values: the Idempotency-Key and its request's hash, in flight. */
export function claimValues(merchantId, key, body, now) {
  return [merchantId, false, key, createHash('sha256').update(body).digest('hex'), 'in_flight', now, now];
}

/** The session insert's values for a request's input (25 USD one-time embedded, as the bench sends). */
export function sessionValues(merchantId, input, now) {
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
  return [...SESSION_COLUMNS.map((c) => row[c] ?? null), merchantId, merchantId];
}

export const markValues = (merchantId, key) => ['committed', merchantId, false, key, 'in_flight'];
export const storeValues = (merchantId, key, answer) => ['done', 201, '{"content-type":"application/json; charset=utf-8"}', answer, merchantId, false, key];

/** A created session's answer (the fields a client reads). */
export function sessionAnswer(session) {
  return JSON.stringify({
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
}

/** The customer insert's values. */
export const customerValues = (merchantId, input) => [
  merchantId,
  input.email,
  input.name ?? null,
  null,
  null,
  '{}',
  new Date(),
  merchantId,
  input.email.toLowerCase(),
];

/** Till's envelope around a row (`data` null when there is none). */
export const envelope = (row) => JSON.stringify({ success: true, errorCode: null, errorMessage: null, data: row ?? null });
