// Tokenize and confirm on the sandbox processor: test cards, payments, invoices, ledger, events,
// holds, and no card data anywhere. Named after the rules they prove. Racing confirms: confirm.pg.test.ts.
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.js';
import { useTestServer } from '../support/server.js';
import { CARD_EXPIRY_YEAR as future, checkoutKit } from '../support/checkout.js';
import { delivered } from '../support/events.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';

const logLines: string[] = [];
const logSink = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk));
    done();
  },
});
const t = useTestServer({ logger: createLogger('debug', logSink) });
const pk = () => t.merchantA.keys.test.publishable;
const sk = () => t.merchantA.keys.test.secret;

const billingDetails = { name: 'Maria Lopez', email: 'maria@example.com' };
const card = (cardNumber: string) => ({ cardNumber, expiryMonth: 12, expiryYear: future, cvc: '123', billingDetails });
const kit = checkoutKit(t, {
  amount: 49.99,
  customerEmail: 'maria@example.com',
  customerFirstName: 'Maria',
  customerLastName: 'Lopez',
  metadata: { orderId: '8841' },
});
const session = kit.session;
const tokenize = (s: { id: string; clientSecret: string }, number: string, cvc = '123') => kit.tokenize(s, number, { cvc, billingDetails });
const confirm = (s: { id: string; clientSecret: string }, paymentMethodId: string) => kit.confirm(s, { paymentMethodId });
const eventTypes = async (sessionId: string) =>
  (await t.database.db.selectFrom('events').select('type').where('session_id', '=', sessionId).orderBy('seq').execute()).map((e) => e.type);

describe('tokenize', () => {
  it('answers the payment_method object with brand, last4 and expiry', async () => {
    const s = await session();
    const visa = await tokenize(s, '4242424242424242');
    expect(visa.status).toBe(201);
    expect(visa.json).toMatchObject({ object: 'payment_method', type: 'card', card: { brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: future } });
    expect(visa.json.id).toMatch(/^pm_/);
    expect((await tokenize(s, '5555555555554444')).json.card.brand).toBe('mastercard');
  });

  it('refuses a number that fails the Luhn check, an expired card and a CVC of the wrong length', async () => {
    const s = await session();
    expect((await tokenize(s, '4242424242424241')).json.error).toMatchObject({ code: 'invalid_card', param: 'cardNumber' });
    const expired = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
      key: pk(),
      clientSecret: s.clientSecret,
      body: { ...card('4242424242424242'), expiryYear: 2020 },
    });
    expect(expired.json.error).toMatchObject({ code: 'invalid_card', param: 'expiryYear' });
    expect((await tokenize(s, '4242424242424242', '1234')).json.error).toMatchObject({ code: 'invalid_card', param: 'cvc' });
  });

  it('needs the publishable key with the client secret', async () => {
    const s = await session();
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: sk(), body: card('4242424242424242') })).status).toBe(403);
  });
});

describe('confirm', () => {
  it('a paid one-time session makes one payment and one paid invoice recording the payer; the answer reads complete and paid', async () => {
    const s = await session();
    const pm = (await tokenize(s, '4242424242424242')).json.id;
    const res = await confirm(s, pm);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: s.id,
      object: 'checkout_session',
      status: 'complete',
      paymentStatus: 'paid',
      paymentResult: { status: 'succeeded', amount: 49.99, currency: 'USD' },
      nextAction: null,
    });
    expect(Number.isInteger(res.json.paymentResult.id)).toBe(true);

    const payment = await t.database.db.selectFrom('payments').selectAll().where('session_id', '=', s.id).execute();
    expect(payment).toHaveLength(1);
    expect(payment[0]).toMatchObject({ status: 'succeeded', amount: '49.9900', fee: '1.7500' });
    expect(payment[0]!.reference_number).toMatch(/^PAY-/);
    const invoice = await t.database.db.selectFrom('invoices').selectAll().where('id', '=', payment[0]!.invoice_id!).executeTakeFirstOrThrow();
    expect(invoice).toMatchObject({
      status: 'paid',
      total: '49.9900',
      amount_paid: '49.9900',
      payer_email: 'maria@example.com',
      payer_first_name: 'Maria',
      payer_last_name: 'Lopez',
    });

    const got = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: sk() });
    expect(got.json).toMatchObject({ status: 'completed', invoiceId: invoice.id });
    expect(await eventTypes(s.id)).toEqual(['payment.succeeded', 'checkout.session.completed']);
  });

  it('payment events carry the session metadata and PascalCase statuses', async () => {
    const s = await session({ metadata: { orderId: 'A-77' } });
    await confirm(s, (await tokenize(s, '5555555555554444')).json.id);
    const rows = (await t.database.db.selectFrom('events').select(['type', 'data']).where('session_id', '=', s.id).orderBy('seq').execute()).map(delivered);
    expect(rows[0]!.data).toMatchObject({
      object: 'payment',
      status: 'Success',
      metadata: { orderId: 'A-77' },
      paymentMethod: { type: 'card', brand: 'mastercard', last4: '4444' },
    });
    expect(rows[1]!.data).toMatchObject({ object: 'checkout_session', status: 'Completed', paymentStatus: 'Paid' });
  });

  it('the ledger holds the payment and its fee, exactly', async () => {
    const s = await session({ amount: 10 });
    const res = await confirm(s, (await tokenize(s, '4242424242424242')).json.id);
    const entries = await t.database.db
      .selectFrom('ledger_entries')
      .select(['type', 'amount'])
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', res.json.paymentResult.id)
      .orderBy('id')
      .execute();
    expect(entries).toEqual([
      { type: 'payment', amount: '10.0000' },
      { type: 'fee', amount: '-0.5900' },
    ]);
  });

  it('a declined card (insufficient funds) answers card_declined and the session stays payable', async () => {
    const s = await session();
    const declined = await confirm(s, (await tokenize(s, '4000000000009995')).json.id);
    expect(declined.status).toBe(400);
    expect(declined.json.error).toMatchObject({ code: 'card_declined' });
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: sk() })).json.status).toBe('created');
    const paid = await confirm(s, (await tokenize(s, '4242424242424242')).json.id);
    expect(paid.status).toBe(200);
    expect(await eventTypes(s.id)).toEqual(['payment.failed', 'payment.succeeded', 'checkout.session.completed']);
  });

  it('the processing-error card answers 502 processing_error, retryable, and the session stays payable', async () => {
    const s = await session();
    const res = await confirm(s, (await tokenize(s, '4000000000000119')).json.id);
    expect(res.status).toBe(502);
    expect(res.json.error).toMatchObject({ type: 'processor_error', code: 'processing_error', retryable: true });
    expect((await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: sk() })).json.status).toBe('created');
  });

  it('a completed session refuses another confirm (409), a cancelled one answers 400 session_not_payable', async () => {
    const s = await session();
    await confirm(s, (await tokenize(s, '4242424242424242')).json.id);
    expect((await confirm(s, (await tokenize(s, '4242424242424242')).json.id)).status).toBe(409);
    const c = await session();
    const pmId = (await tokenize(c, '4242424242424242')).json.id;
    await t.call('POST', `/v1/checkout-sessions/${c.id}/cancel`, { key: sk() });
    const res = await confirm(c, pmId);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('session_not_payable');
  });

  it('a cancel of a completed session is refused: refund instead', async () => {
    const s = await session();
    await confirm(s, (await tokenize(s, '4242424242424242')).json.id);
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk() });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('session_already_completed');
  });

  it('a payment method of another session is refused', async () => {
    const a = await session();
    const b = await session();
    const res = await confirm(a, (await tokenize(b, '4242424242424242')).json.id);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('paymentMethodId');
  });
});

describe('holds (captureMethod manual)', () => {
  it('confirm authorizes: complete with payment status authorized; nothing is paid; status polling shows the hold fields', async () => {
    const s = await session({ captureMethod: 'manual' });
    const before = await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: pk(), clientSecret: s.clientSecret });
    expect(before.json).toEqual({ status: 'created' });
    const res = await confirm(s, (await tokenize(s, '4242424242424242')).json.id);
    expect(res.json).toMatchObject({ status: 'complete', paymentStatus: 'authorized', paymentResult: { status: 'authorized' } });
    expect(await eventTypes(s.id)).toEqual(['payment.authorized', 'checkout.session.completed']);
    const status = await t.call('GET', `/v1/checkout-sessions/${s.id}/status`, { key: pk(), clientSecret: s.clientSecret });
    expect(status.json).toMatchObject({
      status: 'completed',
      captureMethod: 'manual',
      paymentId: res.json.paymentResult.id,
      holdStatus: 'authorized',
      authorizedAmount: 49.99,
    });
    const days = (new Date(status.json.authorizationExpiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const ledger = await t.database.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('account', 'in', MERCHANT_BALANCES)
      .where('payment_id', '=', res.json.paymentResult.id)
      .execute();
    expect(ledger).toHaveLength(0);
    const payment = await t.database.db
      .selectFrom('payments')
      .select(['invoice_id', 'status'])
      .where('id', '=', res.json.paymentResult.id)
      .executeTakeFirstOrThrow();
    expect(payment.status).toBe('authorized');
    // The session's invoice exists but is not paid until capture.
    const invoice = await t.database.db
      .selectFrom('invoices')
      .select(['status', 'amount_paid'])
      .where('id', '=', payment.invoice_id!)
      .executeTakeFirstOrThrow();
    expect(invoice).toEqual({ status: 'pending', amount_paid: '0.0000' });
  });
});

describe('card data', () => {
  it('no card number or CVC appears in the database or the logs', async () => {
    const s = await session();
    await tokenize(s, '4000000000009995', '987');
    await tokenize(s, '4242424242424241', '654');
    await confirm(s, (await tokenize(s, '4242424242424242', '321')).json.id);
    // A card that opens a 3-D Secure challenge leaves nothing of the number either.
    const challenged = await session();
    expect((await confirm(challenged, (await tokenize(challenged, '4000000000003220', '777')).json.id)).json.nextAction.type).toBe('redirect_to_3ds');
    const numbers = ['4242424242424242', '4000000000009995', '4242424242424241', '4000000000003220'];
    const tables = (
      await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`.execute(t.database.db)
    ).rows.map((r) => r.table_name);
    for (const table of tables) {
      const rows = (await sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(table)} t`.execute(t.database.db)).rows
        .map((r) => r.row)
        .join('\n');
      for (const n of numbers) expect(rows, `${n} in ${table}`).not.toContain(n);
      const methods = table === 'payment_methods' ? rows : '';
      for (const cvc of ['987', '654', '321', '777']) expect(methods, `CVC ${cvc} in payment_methods`).not.toMatch(new RegExp(`"${cvc}"`));
    }
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const n of numbers) expect(logs).not.toContain(n);
  });
});
