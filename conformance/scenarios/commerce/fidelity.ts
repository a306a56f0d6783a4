// Rules issue 35 settled that no other scenario checked: a funding source that is not verified or is
// blocked pays nothing but is a failed payment (§2), and `referenceNumber` is the merchant's own,
// unique per merchant only (§7).
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { otherSecretKey, tag } from '../fixtures/keys.js';
import { commerce, PAY, registerCard } from '../fixtures/commerce-funds.js';
import { INVOICES } from '../fixtures/commerce-invoices.js';
import { assertIsSuccessRule, newInvoice, optionOf, payInvoice, PAYMENT_RULES } from '../fixtures/commerce-payments.js';
import { scenario } from '../fixtures/scenario.js';

/** Wrong codes that block a funding source (Till's design: the fifth). */
const WRONG_CODES_TO_BLOCK = 5;

/** Pays a new invoice (85.00) with the funding source; checks a failed payment, 200, and answers its body. */
async function failedWithSource(ctx: ConformanceContext, fundingSourceId: number, what: string): Promise<any> {
  const invoice = await newInvoice(ctx);
  const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: await optionOf(ctx, invoice.id, 'CreditCard', 'Visa'), fundingSourceId });
  expectStatus(res, 200, `${what}: a failed payment still answers 200`);
  assert.equal(res.json.isSuccess, false, `${what}: isSuccess false`);
  assert.equal(res.json.paymentStatusId, 'Failed', `${what}: a Failed payment is recorded`);
  assertIsSuccessRule(res.json);
  assert.ok(typeof res.json.hostMessage === 'string' && res.json.hostMessage.length > 0, `${what}: hostMessage gives the reason`);
  assert.equal(res.json.amountPaid, 0, `${what}: nothing paid`);
  const after = await commerce(ctx, 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${invoice.id}` });
  assert.notEqual(after.json.status, 'Paid', `${what}: the invoice stays unpaid`);
  return res.json;
}

const createInvoice = (ctx: ConformanceContext, apiKey: string, referenceNumber: string) =>
  call(ctx, 'commerce', 'createCommerceInvoice', {
    method: 'POST',
    path: '/v1/invoice',
    apiKey,
    body: {
      currencyCode: 'USD',
      referenceNumber,
      items: [{ name: 'Workshop seat', unitCost: 10, quantity: 1 }],
      sourceInfo: { firstName: 'Ana', lastName: 'Lopez', email: 'ana.lopez@example.com' },
    },
  });

export const commerceFidelity: Scenario[] = [
  scenario(
    'commerce.payments.rule-2-unverified-or-blocked-source-fails',
    'A funding source that is not verified, or is blocked, pays nothing: 200 with `isSuccess` false, a `hostMessage` and a `Failed` payment, not a 4xx',
    PAYMENT_RULES,
    ['registerCard', 'verifyFundingSource', 'getCommerceInvoice', ...PAY],
    async (ctx) => {
      // A card that asks for verification: registered, not verified.
      const unverified = (await registerCard(ctx, '4000000000003220')).json;
      assert.equal(unverified.status, 'VerificationRequired');
      await failedWithSource(ctx, unverified.fundingSourceId, 'an unverified funding source');
      // Wrong codes until it is blocked.
      const id = unverified.fundingSourceId;
      for (let i = 0; i < WRONG_CODES_TO_BLOCK; i++) {
        const wrong = await commerce(ctx, 'verifyFundingSource', {
          method: 'POST',
          path: `/v1/fundingSource/${id}/verify`,
          body: { VerificationCode: '000000' },
        });
        assert.ok(wrong.status >= 400 && wrong.status < 500, `a wrong code is refused, got ${wrong.status}`);
      }
      const sources = (await commerce(ctx, 'listFundingSources', { method: 'GET', path: '/v1/FundingSource' })).json.value;
      assert.equal(sources.find((s: any) => s.id === id)?.statusId, 'Blocked', `${WRONG_CODES_TO_BLOCK} wrong codes block the source`);
      await failedWithSource(ctx, id, 'a blocked funding source');
    },
  ),
  scenario(
    'commerce.invoices.reference-number-per-merchant',
    "`referenceNumber` is the merchant's own: unique per merchant (a second invoice with it is refused), while another merchant may use the same one",
    INVOICES,
    ['createCommerceInvoice'],
    async (ctx) => {
      const reference = `CONF-${tag(ctx).slice(-10).toUpperCase()}-REF`;
      const mine = ctx.options.apiKey ?? ctx.options.secretKey;
      expectStatus(await createInvoice(ctx, mine, reference), 201, 'the first invoice with the reference');
      const again = await createInvoice(ctx, mine, reference);
      assert.ok(
        again.status === 400 || again.status === 409,
        `the same merchant cannot use the reference twice, got ${again.status} ${again.text.slice(0, 200)}`,
      );
      const theirs = await createInvoice(ctx, await otherSecretKey(ctx), reference);
      expectStatus(theirs, 201, 'another merchant uses the same reference');
      assert.equal(theirs.json.referenceNumber, reference);
    },
  ),
];
