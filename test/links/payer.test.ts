// Payment links, the payer's side (issue 16 §1): the public reads (by identifier, by the merchant's
// slug and code) counting views, the QR code, invoices made through a link and paid through
// `payinvoice` (the link's counters), its rules (status, validity, uses, amounts, password, email
// verification), and expiry on the sandbox clock. The payments racing for a link's last use are in
// payer.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { AheadClock, beans, payer, payerKit } from '../support/links.js';
import { useTestServer } from '../support/server.js';

const clock = new AheadClock();
const t = useTestServer({ clock });
const { sk, newLink, readLink, invoiceFrom, invoiced, pay, lastCode } = payerKit(t);
const slugOf = async (merchantId: number) =>
  (await t.database.db.selectFrom('merchants').select('slug').where('id', '=', merchantId).executeTakeFirstOrThrow()).slug;

describe('public reads', () => {
  it('GetByIdentifier answers the public view with no key, the merchant and no analytics, and counts a view', async () => {
    const link = await newLink();
    const res = await t.call('GET', `/v1/PaymentLink/GetByIdentifier(identifier='${link.identifier}')`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      id: link.id,
      identifier: link.identifier,
      unitPrice: '24.50',
      status: 'Active',
      plans: [],
      merchant: { name: expect.any(String) },
    });
    expect(res.json).not.toHaveProperty('clickCount');
    expect(res.json).not.toHaveProperty('notificationUrl');
    await t.call('GET', `/v1/PaymentLink/GetByIdentifier(identifier='${link.identifier}')`);
    expect((await readLink(link.id)).clickCount).toBe(2);
  });

  it("GetByMerchantSlug finds the link by the merchant's slug and its code, and counts a view; other slugs or codes are 404", async () => {
    const link = await newLink();
    const slug = await slugOf(t.merchantA.merchantId);
    const res = await t.call('GET', `/v1/PaymentLink/GetByMerchantSlug(merchantSlug='${slug}',code='${link.code}')`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.identifier).toBe(link.identifier);
    expect((await readLink(link.id)).clickCount).toBe(1);
    const otherSlug = await slugOf(t.merchantB.merchantId);
    expect((await t.call('GET', `/v1/PaymentLink/GetByMerchantSlug(merchantSlug='${otherSlug}',code='${link.code}')`)).status).toBe(404);
    expect((await t.call('GET', `/v1/PaymentLink/GetByMerchantSlug(merchantSlug='${slug}',code='nope')`)).status).toBe(404);
  });

  it('draft and inactive links are read with their status; a deleted or unknown link is 404 everywhere', async () => {
    const draft = await newLink({ ...beans, status: 'Draft' });
    expect((await t.call('GET', `/v1/PaymentLink/GetByIdentifier(identifier='${draft.identifier}')`)).json.status).toBe('Draft');
    await t.call('DELETE', `/v1/PaymentLink/${draft.id}`, { apiKey: sk() });
    expect((await t.call('GET', `/v1/PaymentLink/GetByIdentifier(identifier='${draft.identifier}')`)).status).toBe(404);
    expect((await t.call('GET', `/v1/PaymentLink/qr/${draft.identifier}`)).status).toBe(404);
    expect((await invoiceFrom(draft.identifier)).status).toBe(404);
  });

  it('the QR code is a PNG, public', async () => {
    const link = await newLink();
    const res = await fetch(`${t.url}${link.qrCodeUrl}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });
});

describe('an invoice from a link', () => {
  it("is Pending with one item built from the link, the payer, the link's URLs; paying it counts on the link", async () => {
    const link = await newLink();
    const inv = await invoiced(link.identifier, { ...payer, quantity: '2' });
    expect(inv).toMatchObject({
      status: 'Pending',
      currencyCode: 'USD',
      subTotal: 49,
      taxAmount: 4.04,
      totalCost: 53.04,
      successUrl: beans.successUrl,
      description: 'Beans',
    });
    expect(inv.items).toMatchObject([{ name: 'Yirgacheffe 1 kg', description: 'Light roast', unitCost: 24.5, quantity: 2, taxRate: 8.25 }]);
    expect(inv.sourceInfo).toMatchObject({ email: 'Ana@Example.com', firstName: 'Ana', lastName: 'Lopez' });
    expect(inv.paymentUrl).toMatch(new RegExp(`/invoice/${inv.identifier}$`));
    expect(await readLink(link.id)).toMatchObject({ invoiceCount: 1, completedPaymentCount: 0, totalAmountCollected: '0.00' });
    const paid = await pay(inv.id);
    expect(paid.json, paid.text).toMatchObject({ isSuccess: true });
    expect(await readLink(link.id)).toMatchObject({ invoiceCount: 1, completedPaymentCount: 1, totalAmountCollected: '53.04', status: 'Active' });
  });

  it('outlives its link: deleting a paid link deletes it permanently; its invoices keep its name and code, stay listed, and an unpaid one can still be paid', async () => {
    const link = await newLink();
    const [paidOne, openOne] = [await invoiced(link.identifier, payer), await invoiced(link.identifier, { ...payer, email: 'bo@example.com' })];
    expect((await pay(paidOne.id)).json).toMatchObject({ isSuccess: true });
    const deleted = await t.call('DELETE', `/v1/PaymentLink/${link.id}`, { apiKey: sk() });
    expect(deleted.status, deleted.text).toBe(204);
    expect((await t.call('GET', `/v1/PaymentLink/${link.id}`, { apiKey: sk() })).status).toBe(404);
    expect((await invoiceFrom(link.identifier)).status).toBe(404);
    const filter = encodeURIComponent(`id eq ${paidOne.id} or id eq ${openOne.id}`);
    const listed = await t.call('GET', `/v1/invoice?$filter=${filter}`, { apiKey: sk() });
    expect(listed.json.value.map((i: { id: number; status: string; description: string }) => [i.id, i.status, i.description])).toEqual([
      [openOne.id, 'Pending', 'Beans'],
      [paidOne.id, 'Paid', 'Beans'],
    ]);
    expect((await pay(openOne.id)).json).toMatchObject({ isSuccess: true });
    expect((await t.call('GET', `/v1/invoice/${openOne.id}`, { apiKey: sk() })).json.status).toBe('Paid');
    const records = await t.database.db
      .selectFrom('payment_link_invoices')
      .select(['invoice_id', 'link_id', 'link_name', 'link_code', 'paid_at'])
      .where('invoice_id', 'in', [paidOne.id, openOne.id])
      .orderBy('invoice_id')
      .execute();
    expect(records.map((r) => [r.invoice_id, r.link_id, r.link_name, r.link_code, r.paid_at !== null])).toEqual([
      [paidOne.id, null, 'Beans', link.code, true],
      [openOne.id, null, 'Beans', link.code, true],
    ]);
  });

  it('a variable amount must be sent and lie within minAmount..maxAmount; fixed-price links refuse it', async () => {
    const gift = await newLink({ name: 'Gift', currencyCode: 'EUR', linkType: 'Donation', isVariableAmount: true, minAmount: '5', maxAmount: '500' });
    expect((await invoiceFrom(gift.identifier)).json.error).toMatchObject({ code: 'parameter_missing', param: 'amount' });
    for (const amount of ['4.99', '500.01', '0'])
      expect((await invoiceFrom(gift.identifier, { ...payer, amount })).json.error, amount).toMatchObject({ code: 'validation_error', param: 'amount' });
    expect((await invoiceFrom(gift.identifier, { ...payer, amount: '5.001' })).json.error).toMatchObject({ param: 'amount' });
    expect(await invoiced(gift.identifier, { ...payer, amount: '42.10' })).toMatchObject({ totalCost: 42.1, currencyCode: 'EUR' });
    const fixed = await newLink();
    expect((await invoiceFrom(fixed.identifier, { ...payer, amount: '10' })).json.error).toMatchObject({ code: 'parameter_unknown', param: 'amount' });
  });

  it('draft, inactive, not-yet-valid and past-validTo links refuse with 409 invalid_state saying why', async () => {
    const draft = await newLink({ ...beans, status: 'Draft' });
    expect((await invoiceFrom(draft.identifier)).json.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('not published') });
    const inactive = await newLink();
    await t.call('POST', `/v1/PaymentLink/${inactive.id}/Deactivate`, { apiKey: sk() });
    expect((await invoiceFrom(inactive.identifier)).json.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('deactivated') });
    const later = await newLink({ ...beans, validFrom: new Date(Date.now() + 86_400_000).toISOString() });
    expect((await invoiceFrom(later.identifier)).json.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('opens on') });
    const now = clock.now().getTime();
    const past = await newLink({ ...beans, validFrom: new Date(now - 86_400_000).toISOString(), validTo: new Date(now + 1500).toISOString() });
    clock.advance(1600); // the server's clock passes validTo (it was made valid, and now it is not)
    expect((await invoiceFrom(past.identifier)).json.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('expired') });
  });

  it('a subscription link refuses CreateInvoice with 400', async () => {
    const product = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Cloud' } });
    const sub = await newLink({ name: 'Sub', currencyCode: 'USD', isSubscriptionBased: true, subscriptionProductId: product.json.data?.id ?? product.json.id });
    expect((await invoiceFrom(sub.identifier)).json.error).toMatchObject({ code: 'validation_error' });
  });

  it('a password-protected link needs the right password', async () => {
    const link = await newLink({ ...beans, isPasswordProtected: true, password: 'opensesame' });
    expect((await invoiceFrom(link.identifier)).json.error).toMatchObject({ code: 'parameter_missing', param: 'password' });
    expect((await invoiceFrom(link.identifier, { ...payer, password: 'wrong-one' })).json.error).toMatchObject({ code: 'validation_error', param: 'password' });
    await invoiced(link.identifier, { ...payer, password: 'opensesame' });
  });
});

describe('email verification', () => {
  it('a code to the outbox; the invoice needs it, for the same email, once; resends wait 60 s', async () => {
    const link = await newLink({ ...beans, isEmailVerificationRequired: true });
    const email = 'verify-1@example.com';
    const sent = await t.call('POST', `/v1/PaymentLink/SendVerificationCode(identifier='${link.identifier}')`, { body: { email } });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json).toMatchObject({ tokenId: expect.stringMatching(/^vt_/), email, message: expect.any(String) });
    expect(new Date(sent.json.expiresAt).getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    const code = await lastCode(email);
    const body = { email, firstName: 'V', lastName: 'One' };
    expect((await invoiceFrom(link.identifier, body)).json.error).toMatchObject({ code: 'parameter_missing', param: 'verificationTokenId' });
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await invoiceFrom(link.identifier, { ...body, verificationTokenId: sent.json.tokenId, verificationCode: wrong })).json.error).toMatchObject({
      code: 'verification_code_invalid',
    });
    expect(
      (await invoiceFrom(link.identifier, { ...body, email: 'other@example.com', verificationTokenId: sent.json.tokenId, verificationCode: code })).json.error,
    ).toMatchObject({ code: 'verification_code_invalid' });
    await invoiced(link.identifier, { ...body, verificationTokenId: sent.json.tokenId, verificationCode: code });
    expect((await invoiceFrom(link.identifier, { ...body, verificationTokenId: sent.json.tokenId, verificationCode: code })).json.error).toMatchObject({
      code: 'verification_code_invalid',
    });
    const again = await t.call('POST', `/v1/PaymentLink/SendVerificationCode(identifier='${link.identifier}')`, { body: { email } });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('five wrong codes end the token, even for the right code', async () => {
    const link = await newLink({ ...beans, isEmailVerificationRequired: true });
    const email = 'verify-2@example.com';
    const sent = await t.call('POST', `/v1/PaymentLink/SendVerificationCode(identifier='${link.identifier}')`, { body: { email } });
    const code = await lastCode(email);
    const wrong = code === '000000' ? '111111' : '000000';
    const body = { email, firstName: 'V', lastName: 'Two', verificationTokenId: sent.json.tokenId };
    for (let i = 0; i < 5; i++) expect((await invoiceFrom(link.identifier, { ...body, verificationCode: wrong })).status).toBe(400);
    expect((await invoiceFrom(link.identifier, { ...body, verificationCode: code })).json.error).toMatchObject({ code: 'verification_code_invalid' });
  });

  it('a link without verification answers 400; one that takes no payments 409', async () => {
    const plain = await newLink();
    expect(
      (await t.call('POST', `/v1/PaymentLink/SendVerificationCode(identifier='${plain.identifier}')`, { body: { email: 'x@example.com' } })).json.error,
    ).toMatchObject({ code: 'validation_error' });
    const off = await newLink({ ...beans, isEmailVerificationRequired: true, status: 'Draft' });
    expect((await t.call('POST', `/v1/PaymentLink/SendVerificationCode(identifier='${off.identifier}')`, { body: { email: 'x@example.com' } })).status).toBe(
      409,
    );
  });
});

describe('uses', () => {
  it('maxUses counts completed payments: the last use expires the link; a second invoice can no longer be paid', async () => {
    const link = await newLink({ ...beans, maxUses: 1 });
    const [first, second] = [await invoiced(link.identifier), await invoiced(link.identifier, { ...payer, email: 'bo@example.com' })];
    expect((await pay(first.id)).json).toMatchObject({ isSuccess: true });
    expect(await readLink(link.id)).toMatchObject({ status: 'Expired', completedPaymentCount: 1 });
    expect((await invoiceFrom(link.identifier)).json.error).toMatchObject({ code: 'invalid_state' });
    const refused = await pay(second.id);
    expect([refused.status, refused.json.error?.code]).toEqual([409, 'invoice_not_payable']);
    expect((await t.call('GET', `/v1/invoices/${second.id}`, { key: sk() })).json.status).toBe('pending');
    expect((await t.call('POST', `/v1/PaymentLink/${link.id}/Activate`, { apiKey: sk() })).status).toBe(409);
    expect((await t.call('PATCH', `/v1/PaymentLink/${link.id}`, { apiKey: sk(), body: { maxUses: 2 } })).json.status).toBe('Inactive');
  });

  it('SingleUse is maxUses 1', async () => {
    expect((await newLink({ ...beans, usageMode: 'SingleUse', maxUses: 5 })).maxUses).toBe(1);
  });

  it('maxUsesPerCustomer counts by payer email, in any case', async () => {
    const link = await newLink({ ...beans, maxUsesPerCustomer: 1 });
    const first = await invoiced(link.identifier);
    const second = await invoiced(link.identifier, { ...payer, email: 'ana@example.COM' });
    expect((await pay(first.id)).json.isSuccess).toBe(true);
    expect((await invoiceFrom(link.identifier, { ...payer, email: 'ANA@example.com' })).json.error).toMatchObject({ code: 'invalid_state' });
    expect((await pay(second.id)).json.error).toMatchObject({ code: 'invoice_not_payable' });
    await invoiced(link.identifier, { ...payer, email: 'someone-else@example.com' });
  });
});

describe('expiry on the sandbox clock', () => {
  it('a link past validTo becomes Expired when the clock passes it', async () => {
    const m = await t.newMerchant('Link clock');
    const key = m.keys.test.secret;
    const link = await newLink({ ...beans, validTo: new Date(Date.now() + 3600_000).toISOString() }, key);
    expect((await t.call('POST', '/v1/test-helpers/clock/advance', { key, body: { seconds: 7200 } })).status).toBe(200);
    expect((await readLink(link.id, key)).status).toBe('Expired');
    expect((await invoiceFrom(link.identifier)).status).toBe(409);
    expect((await t.call('PATCH', `/v1/PaymentLink/${link.id}`, { apiKey: key, body: { validTo: null } })).json.status).toBe('Inactive');
  });
});
