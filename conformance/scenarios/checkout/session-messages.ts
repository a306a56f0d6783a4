// What a checkout session tells its payer: the session's invoice (`notifyCustomer`, falling back to the
// merchant setting 'Message Checkout Customers') and a receipt on payment (`sendReceipt`, falling back
// to 'Send Checkout Receipts'), read back from the messages test mode records instead of sending.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { apiKey, emailFor } from '../fixtures/keys.js';
import { sessionMessages } from '../fixtures/messages.js';
import { MESSAGES, PAY_CARD, RETRIEVE, SESSION } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { CREATE_FIELDS } from '../fixtures/sections.js';
import { newSession, payByCard, retrieveSession } from '../fixtures/sessions.js';

const PHONE = '+15555550142';

/** The merchant's checkout settings (`GET /v1/merchant` of the Commerce interface). */
async function settingsOf(ctx: ConformanceContext): Promise<{ messageCheckoutCustomers: boolean; sendCheckoutReceipts: boolean }> {
  const res = await call(ctx, 'commerce', 'getMerchant', { method: 'GET', path: '/v1/merchant', apiKey: apiKey(ctx) });
  expectStatus(res, 200, 'read the merchant');
  return res.json.settings;
}

/**
 * A merchant nobody has set up (a sandbox merchant of the run, made by `createTestMerchant`), to see
 * the settings' defaults; undefined when the target cannot make one (the merchant given may have
 * turned them either way).
 */
async function untouchedSettings(ctx: ConformanceContext): Promise<{ messageCheckoutCustomers: boolean; sendCheckoutReceipts: boolean } | undefined> {
  const made = await ctx.sandboxMerchant();
  return 'ctx' in made ? settingsOf(made.ctx) : undefined;
}

/** A session with the payer's email (and phone), paid by card; answers the session and its receipts. */
async function paidWithReceipts(ctx: ConformanceContext, extra: Record<string, unknown>): Promise<{ s: any; read: any; receipts: any[] }> {
  const s = await newSession(ctx, extra);
  const read = await retrieveSession(ctx, s.id);
  await payByCard(ctx, s);
  return { s, read, receipts: await sessionMessages(ctx, s.id, 'receipt') };
}

export const sessionMessageScenarios: Scenario[] = [
  scenario(
    'checkout.sessions.create.notify-customer-default-off',
    "Without `notifyCustomer` the merchant setting 'Message Checkout Customers' applies (off unless turned on): retrieval reports false and no invoice message is sent",
    CREATE_FIELDS,
    [SESSION, RETRIEVE, MESSAGES, 'getMerchant'],
    async (ctx) => {
      const untouched = await untouchedSettings(ctx);
      if (untouched) assert.equal(untouched.messageCheckoutCustomers, false, "'Message Checkout Customers' is off unless turned on");
      const setting = (await settingsOf(ctx)).messageCheckoutCustomers;
      const s = await newSession(ctx, { customerEmail: emailFor(ctx, 'notify-default'), customerPhone: PHONE });
      assert.equal((await retrieveSession(ctx, s.id)).notifyCustomer, setting, `retrieval reports the merchant setting (${setting})`);
      const sent = await sessionMessages(ctx, s.id, 'checkout_notification');
      if (setting) assert.equal(sent.length, 2, 'the setting turned on: the payer is emailed and texted');
      else assert.deepEqual(sent, [], 'the setting off: no invoice message is sent');
    },
  ),
  scenario(
    'checkout.sessions.create.notify-customer-true',
    "`notifyCustomer` true emails and texts the payer the session's invoice",
    CREATE_FIELDS,
    [SESSION, RETRIEVE, MESSAGES],
    async (ctx) => {
      const email = emailFor(ctx, 'notify-true');
      const s = await newSession(ctx, { amount: 42.5, customerEmail: email, customerPhone: PHONE, notifyCustomer: true });
      assert.equal((await retrieveSession(ctx, s.id)).notifyCustomer, true, 'retrieval reports notifyCustomer true');
      const sent = await sessionMessages(ctx, s.id, 'checkout_notification');
      const byChannel = Object.fromEntries(sent.map((m) => [m.channel, m]));
      assert.deepEqual(Object.keys(byChannel).sort(), ['email', 'sms'], `one email and one text message, got ${JSON.stringify(sent.map((m) => m.channel))}`);
      assert.equal(byChannel.email.to, email, "the email goes to the payer's address");
      assert.equal(byChannel.sms.to, PHONE, "the text goes to the payer's phone");
      for (const m of sent) assert.match(m.body, /42\.50/, `the ${m.channel} message states the amount due: ${m.body}`);
      const none = await newSession(ctx, { customerEmail: email, customerPhone: PHONE, notifyCustomer: false });
      assert.deepEqual(await sessionMessages(ctx, none.id, 'checkout_notification'), [], '`notifyCustomer` false sends nothing');
    },
  ),
  scenario(
    'checkout.sessions.create.send-receipt-default-on',
    "Without `sendReceipt` the merchant setting 'Send Checkout Receipts' applies (on unless turned off): retrieval reports true and a receipt is emailed on payment",
    CREATE_FIELDS,
    [...PAY_CARD, RETRIEVE, MESSAGES, 'getMerchant'],
    async (ctx) => {
      const untouched = await untouchedSettings(ctx);
      if (untouched) assert.equal(untouched.sendCheckoutReceipts, true, "'Send Checkout Receipts' is on unless turned off");
      const setting = (await settingsOf(ctx)).sendCheckoutReceipts;
      const email = emailFor(ctx, 'receipt-default');
      const { read, receipts } = await paidWithReceipts(ctx, { amount: 18.75, customerEmail: email });
      assert.equal(read.sendReceipt, setting, `retrieval reports the merchant setting (${setting})`);
      if (!setting) return assert.deepEqual(receipts, [], 'the setting turned off: no receipt');
      assert.equal(receipts.length, 1, 'one receipt is emailed on payment');
      assert.equal(receipts[0].channel, 'email');
      assert.equal(receipts[0].to, email, "to the payer's email");
      assert.match(receipts[0].body, /18\.75/, `the receipt states the amount paid: ${receipts[0].body}`);
    },
  ),
  scenario(
    'checkout.sessions.create.send-receipt-false',
    '`sendReceipt` false sends no receipt on payment',
    CREATE_FIELDS,
    [...PAY_CARD, RETRIEVE, MESSAGES],
    async (ctx) => {
      const { read, receipts } = await paidWithReceipts(ctx, { customerEmail: emailFor(ctx, 'receipt-false'), sendReceipt: false });
      assert.equal(read.sendReceipt, false, 'retrieval reports sendReceipt false');
      assert.deepEqual(receipts, [], 'no receipt on payment');
      const sent = await paidWithReceipts(ctx, { customerEmail: emailFor(ctx, 'receipt-true'), sendReceipt: true });
      assert.equal(sent.receipts.length, 1, 'with sendReceipt true the same payment is receipted');
    },
  ),
  scenario(
    'checkout.sessions.create.send-receipt-needs-email',
    "A receipt needs the payer's email: a paid session without `customerEmail` sends none",
    CREATE_FIELDS,
    [...PAY_CARD, MESSAGES],
    async (ctx) => {
      const { receipts } = await paidWithReceipts(ctx, { sendReceipt: true, customerFirstName: 'Maria', customerPhone: PHONE });
      assert.deepEqual(receipts, [], 'no email, no receipt (nor a text instead)');
    },
  ),
];
