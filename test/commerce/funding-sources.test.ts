// Funding sources: RegisterCard (sandbox cards decide), verification by the code in the outbox
// (5 wrong codes block), the list; and the domain functions payInvoice will call: charging a
// verified funding source, debiting a wallet account.
import { describe, expect, it } from 'vitest';
import { checkDebit, debitAccount, isRefusal } from '../../server/domain/accounts/account-payment.js';
import { chargeFundingSource } from '../../server/domain/funding-sources/funding-source.service.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { systemClock } from '../../server/shared/clock.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { fundsKit } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const kit = fundsKit(t);

const YY = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');
const register = (m: MerchantCredentials, cardNumber: string, extra: Record<string, unknown> = {}, cvv = '123') =>
  t.call('POST', '/v1/payment/RegisterCard', { apiKey: m.keys.test.secret, body: { card: { cardNumber, expiryDate: `08/${YY}`, cvv }, ...extra } });
const verify = (m: MerchantCredentials, id: number, code: string) =>
  t.call('POST', `/v1/fundingSource/${id}/verify`, { apiKey: m.keys.test.secret, body: { VerificationCode: code } });
const list = async (m: MerchantCredentials) => (await t.call('GET', '/v1/FundingSource', { apiKey: m.keys.test.secret })).json.value;

/** The code of the newest verification email for a funding source, from the outbox. */
async function codeFor(m: MerchantCredentials, id: number): Promise<string> {
  const res = await t.call('GET', '/v1/test-helpers/messages?kind=otp', { key: m.keys.test.secret });
  const message = res.json.data.find((x: any) => x.body.includes(`funding source ${id} `));
  return /is (\d{6})\./.exec(message.body)![1]!;
}

describe('registerCard', () => {
  it('a good card registers: Active, verified, masked, never the number', async () => {
    const m = await t.newMerchant('Cards');
    const res = await register(m, '5555555555554444', { name: 'Business Mastercard' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'Registered', paymentResponse: { isSuccess: true, paymentStatusId: 'Success' } });
    expect(await list(m)).toEqual([
      {
        id: res.json.fundingSourceId,
        name: 'Business Mastercard',
        description: null,
        paymentOptionId: 2,
        statusId: 'Active',
        isVerified: true,
        isCardNotPresentAllowed: true,
        maskedAccountNumber: '************4444',
        expiryDate: `08/${YY}`,
      },
    ]);
    const stored = JSON.stringify(await t.database.db.selectFrom('payment_methods').selectAll().where('merchant_id', '=', m.merchantId).execute());
    expect(stored).not.toContain('5555555555554444');
  });

  it('declining cards fail with isSuccess false and save nothing; an invalid card is a 400 naming the field', async () => {
    const m = await t.newMerchant('Declines');
    const res = await register(m, '4000000000009995');
    expect(res.json).toMatchObject({ status: 'Failed', fundingSourceId: null, paymentResponse: { isSuccess: false, paymentStatusId: 'Failed' } });
    expect(await list(m)).toEqual([]);
    const bad = await register(m, '4242424242424241');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_card', param: 'card.cardNumber' });
    expect((await register(m, '4242424242424242', {}, '12345')).status).toBe(400);
    expect((await register(m, '4242424242424242', {}, '1234')).json.error).toMatchObject({ code: 'invalid_card', param: 'card.cvv' });
  });

  it('an unknown fundingSourceId is a 404; replacing a card keeps the source and takes the new card', async () => {
    const m = await t.newMerchant('Replace');
    expect((await register(m, '4242424242424242', { fundingSourceId: 999999 })).status).toBe(404);
    const first = (await register(m, '4242424242424242')).json;
    const again = (await register(m, '5555555555554444', { fundingSourceId: first.fundingSourceId })).json;
    expect(again.fundingSourceId).toBe(first.fundingSourceId);
    expect((await list(m)).map((s: any) => s.maskedAccountNumber)).toEqual(['************4444']);
  });
});

describe('verifyFundingSource', () => {
  it('the 3-D Secure card needs the code from the outbox; the right code verifies it, once and for all', async () => {
    const m = await t.newMerchant('Verify');
    const res = (await register(m, '4000000000003220')).json;
    expect(res).toMatchObject({ status: 'VerificationRequired', paymentResponse: { isSuccess: true, paymentStatusId: 'CustomerAuthRequired' } });
    expect((await list(m))[0]).toMatchObject({ statusId: 'PendingVerification', isVerified: false });
    const code = await codeFor(m, res.fundingSourceId);
    const ok = await verify(m, res.fundingSourceId, code);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ id: res.fundingSourceId, isVerified: true, statusId: 'Active', message: 'The funding source is verified.' });
    expect((await list(m))[0]).toMatchObject({ statusId: 'Active', isVerified: true });
    expect((await verify(m, res.fundingSourceId, '000000')).json).toMatchObject({ isVerified: true, message: 'The funding source is already verified.' });
  });

  it('a wrong code is a 400 counting down; the 5th blocks the source, and a blocked source answers 409', async () => {
    const m = await t.newMerchant('Wrong');
    const id = (await register(m, '4000000000003220')).json.fundingSourceId;
    const code = await codeFor(m, id);
    const wrong = code === '111111' ? '222222' : '111111';
    const first = await verify(m, id, wrong);
    expect(first.status).toBe(400);
    expect(first.json.error).toMatchObject({
      code: 'verification_code_invalid',
      param: 'VerificationCode',
      message: 'The code is wrong. 4 attempts are left.',
    });
    for (let i = 0; i < 3; i++) await verify(m, id, wrong);
    expect((await verify(m, id, wrong)).json.error.message).toContain('now Blocked');
    expect((await list(m))[0]).toMatchObject({ statusId: 'Blocked', isVerified: false });
    const blocked = await verify(m, id, code);
    expect(blocked.status).toBe(409);
    expect(blocked.json.error).toMatchObject({ code: 'invalid_state' });
  });

  it("another merchant's source is a 404", async () => {
    const m = await t.newMerchant('Owner');
    const id = (await register(m, '4000000000003220')).json.fundingSourceId;
    const other = await t.newMerchant('Other');
    expect((await verify(other, id, '123456')).status).toBe(404);
    expect(await list(other)).toEqual([]);
  });
});

describe('for payInvoice: chargeFundingSource and debitAccount', () => {
  async function invoiceOf(m: MerchantCredentials): Promise<number> {
    const res = await t.call('POST', '/v1/invoices', {
      key: m.keys.test.secret,
      body: { customer: { email: 'payer@example.com' }, currency: 'USD', lineItems: [{ name: 'Work', quantity: 1, unitAmount: 40 }] },
    });
    return res.json.id;
  }

  it('charges a verified source (a succeeded payment, booked with its fee) and refuses an unverified one', async () => {
    const m = await t.newMerchant('Charge');
    const tenant = { merchantId: m.merchantId, livemode: false };
    const invoiceId = await invoiceOf(m);
    const good = (await register(m, '4242424242424242')).json.fundingSourceId;
    const outcome = await t.database.db
      .transaction()
      .execute((trx) => chargeFundingSource(trx, systemClock, { tenant, fundingSourceId: good, amount: '40.00', currency: 'USD', invoiceId, metadata: {} }));
    expect(outcome.ok).toBe(true);
    expect(outcome.payment).toMatchObject({ status: 'succeeded', amount: '40.0000', invoice_id: invoiceId });
    const account = await kit.account(m);
    expect((await t.call('GET', `/v1/account/${account.id}/balance`, { apiKey: m.keys.test.secret })).json).toMatchObject({ currentAmount: 38.54 });
    const pending = (await register(m, '4000000000003220')).json.fundingSourceId;
    await expect(
      t.database.db
        .transaction()
        .execute((trx) =>
          chargeFundingSource(trx, systemClock, { tenant, fundingSourceId: pending, amount: '1.00', currency: 'USD', invoiceId, metadata: {} }),
        ),
    ).rejects.toMatchObject({ code: 'invalid_state', param: 'fundingSourceId' });
  });

  it('debits a wallet account through the ledger, refused when the available balance is short', async () => {
    const m = await t.newMerchant('Debit');
    const tenant = { merchantId: m.merchantId, livemode: false };
    await kit.funded(m, 100);
    const account = await kit.account(m);
    const debit = (payer: Tenant, amount: string) =>
      t.database.db.transaction().execute(async (trx) => {
        const checked = await checkDebit(trx, { tenant: payer, accountId: account.id, amount, currency: 'USD' });
        if (!isRefusal(checked)) await debitAccount(trx, systemClock, { tenant: payer, accountId: account.id, amount, currency: 'USD', paymentId: null });
        return checked;
      });
    expect(await debit(tenant, '40.00')).toMatchObject({ id: account.id });
    expect((await t.call('GET', `/v1/account/${account.id}/balance`, { apiKey: m.keys.test.secret })).json).toMatchObject({
      currentAmount: 56.8,
      availableAmount: 56.8,
    });
    expect(await debit(tenant, '56.81')).toEqual({
      refused: 'insufficient_funds',
      message: `Account ${account.id} has 56.80 USD available; the payment needs 56.81 USD.`,
    });
    const other = await t.newMerchant('Other');
    await expect(debit({ merchantId: other.merchantId, livemode: false }, '1')).rejects.toMatchObject({ code: 'resource_not_found' });
    const tx = (await t.call('GET', '/v1/transaction?$top=1', { apiKey: m.keys.test.secret })).json.value[0];
    expect(tx).toMatchObject({ type: 'Payment', amount: -40, balanceAfter: 56.8, description: 'Paid from the account' });
  });
});
