// Payment links, the merchant's side (issue 16 §1): create with code, identifier, page, QR code and
// embed snippet; update only the fields sent; delete (refused once the link has payments);
// activate and deactivate; the OData list; the cross-field rules.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;

const beans = {
  name: 'Single-origin beans, 1 kg',
  currencyCode: 'USD',
  unitPrice: '24.50',
  taxRate: '8.25',
  productName: 'Ethiopia Yirgacheffe 1 kg',
  callToActionText: 'Buy now',
  buttonColor: '#6F4E37',
};
const call = (method: string, path: string, body?: unknown, apiKey = sk()) => t.call(method, path, { apiKey, ...(body === undefined ? {} : { body }) });
async function newLink(body: Record<string, unknown> = beans, apiKey = sk()) {
  const res = await call('POST', '/v1/PaymentLink', body, apiKey);
  expect(res.status, res.text).toBe(201);
  return res.json;
}

describe('creating a link', () => {
  it('answers the code, identifier, page, QR path, embed snippet and Active status, with exact decimal strings', async () => {
    const link = await newLink();
    expect(link).toMatchObject({
      name: beans.name,
      unitPrice: '24.50',
      quantity: '1',
      taxRate: '8.25',
      taxAmount: '2.02',
      currencyCode: 'USD',
      status: 'Active',
      usageMode: 'MultiUse',
      linkType: 'Standard',
      linkStyle: 'Button',
      isSubscriptionBased: false,
      isPasswordProtected: false,
      clickCount: 0,
      invoiceCount: 0,
      completedPaymentCount: 0,
      totalAmountCollected: '0.00',
      notificationUrl: null,
    });
    expect(link.code).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(link.identifier).toMatch(/^[0-9a-f-]{36}$/);
    expect(link.paymentUrl).toMatch(new RegExp(`^https?://[^/]+/pay/link/${link.identifier}$`));
    expect(link.qrCodeUrl).toBe(`/v1/PaymentLink/qr/${link.identifier}`);
    expect(link.embedCode).toContain(`href="${link.paymentUrl}"`);
    expect(link.embedCode).toContain('background:#6F4E37');
    expect(link.embedCode).toContain('>Buy now</a>');
    expect(link).not.toHaveProperty('notificationSecret');
    expect(link).not.toHaveProperty('password');
  });

  it('gives each link its own code and identifier, and defaults the call to action by type', async () => {
    const [a, b] = [
      await newLink({ name: 'A', currencyCode: 'EUR', unitPrice: '1' }),
      await newLink({ name: 'Gift', currencyCode: 'EUR', linkType: 'Donation', isVariableAmount: true, minAmount: '5', suggestedAmount: '25' }),
    ];
    expect(a.code).not.toBe(b.code);
    expect(a.identifier).not.toBe(b.identifier);
    expect(a.callToActionText).toBe('Pay now');
    expect(b).toMatchObject({ callToActionText: 'Donate', unitPrice: null, minAmount: '5.00', suggestedAmount: '25.00', maxAmount: null, taxAmount: '0.00' });
  });

  it('escapes the call to action in the snippet; the Link and QrCode styles render a text link and the QR image', async () => {
    const text = await newLink({ name: 'T', currencyCode: 'USD', unitPrice: '5', linkStyle: 'Link', callToActionText: '<b>Pay</b> & go' });
    expect(text.embedCode).toBe(`<a href="${text.paymentUrl}" target="_blank" rel="noopener">&#60;b&#62;Pay&#60;/b&#62; &#38; go</a>`);
    const qr = await newLink({ name: 'Q', currencyCode: 'USD', unitPrice: '5', linkStyle: 'QrCode' });
    expect(qr.embedCode).toContain(`<img src="${new URL(qr.paymentUrl).origin}/v1/PaymentLink/qr/${qr.identifier}"`);
    const embed = await call('GET', `/v1/PaymentLink/${qr.id}/EmbedCode`);
    expect(embed.json).toEqual({ embedCode: qr.embedCode, paymentUrl: qr.paymentUrl });
  });

  it('refuses broken rules with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ name: 'X', currencyCode: 'USD' }, 400, 'parameter_missing', 'unitPrice'],
      [{ name: 'X', currencyCode: 'USD', unitPrice: '0' }, 400, 'validation_error', 'unitPrice'],
      [{ name: 'X', currencyCode: 'JPY', unitPrice: '10.5' }, 400, 'validation_error', 'unitPrice'],
      [{ name: 'X', currencyCode: 'USD', isVariableAmount: true, minAmount: '50', maxAmount: '10' }, 400, 'validation_error', 'minAmount'],
      [{ name: 'X', currencyCode: 'USD', isVariableAmount: true, minAmount: '5', suggestedAmount: '2' }, 400, 'validation_error', 'suggestedAmount'],
      [
        { name: 'X', currencyCode: 'USD', unitPrice: '1', validFrom: '2030-01-02T00:00:00Z', validTo: '2030-01-01T00:00:00Z' },
        400,
        'validation_error',
        'validTo',
      ],
      [{ name: 'X', currencyCode: 'USD', unitPrice: '1', taxRate: '101' }, 400, 'parameter_invalid', 'taxRate'],
      [{ name: 'X', currencyCode: 'USD', isSubscriptionBased: true }, 400, 'parameter_missing', 'subscriptionProductId'],
      [{ name: 'X', currencyCode: 'USD', isSubscriptionBased: true, subscriptionProductId: 999999 }, 400, 'validation_error', 'subscriptionProductId'],
      [{ name: 'X', currencyCode: 'USD', unitPrice: '1', isPasswordProtected: true }, 400, 'parameter_missing', 'password'],
      [{ name: 'X', currencyCode: 'USD', unitPrice: '1', notificationUrl: 'https://127.0.0.1/hook' }, 400, 'parameter_invalid', 'notificationUrl'],
      [{ name: 'X', currencyCode: 'XXX', unitPrice: '1' }, 400, 'parameter_invalid', 'currencyCode'],
    ];
    for (const [body, status, code, param] of cases) {
      const res = await call('POST', '/v1/PaymentLink', body);
      expect([res.status, res.json.error?.code, res.json.error?.param], JSON.stringify(body)).toEqual([status, code, param]);
    }
  });

  it('a notificationUrl without a secret gets a generated one, answered once; a password is never answered', async () => {
    const link = await newLink({ ...beans, notificationUrl: 'https://hooks.example.com/till', isPasswordProtected: true, password: 'opensesame' });
    expect(link.notificationSecret).toMatch(/^whsec_/);
    expect(link.isPasswordProtected).toBe(true);
    const listed = await call('GET', `/v1/PaymentLink?$filter=id eq ${link.id}`);
    expect(listed.json.value[0]).not.toHaveProperty('notificationSecret');
    const row = await t.database.db
      .selectFrom('payment_links')
      .select(['password_hash', 'notification_secret'])
      .where('id', '=', link.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('opensesame');
    expect(row.notification_secret).toBe(link.notificationSecret);
  });
});

describe('updating a link', () => {
  it('changes only the fields sent; null clears; code, identifier and URLs never change', async () => {
    const link = await newLink({ ...beans, description: 'Fresh' });
    const res = await call('PATCH', `/v1/PaymentLink/${link.id}`, { unitPrice: '26.00', description: null });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ unitPrice: '26.00', description: null, name: beans.name, taxRate: '8.25', taxAmount: '2.15', buttonColor: '#6F4E37' });
    for (const k of ['code', 'identifier', 'paymentUrl', 'qrCodeUrl']) expect(res.json[k]).toBe(link[k]);
  });

  it('applies the rules to the result, and refuses status and unknown fields', async () => {
    const link = await newLink({ name: 'V', currencyCode: 'USD', isVariableAmount: true, minAmount: '5', maxAmount: '50' });
    expect((await call('PATCH', `/v1/PaymentLink/${link.id}`, { minAmount: '60' })).json.error).toMatchObject({ code: 'validation_error', param: 'minAmount' });
    expect((await call('PATCH', `/v1/PaymentLink/${link.id}`, { isVariableAmount: false })).json.error).toMatchObject({
      code: 'parameter_missing',
      param: 'unitPrice',
    });
    expect((await call('PATCH', `/v1/PaymentLink/${link.id}`, { status: 'Active' })).status).toBe(400);
    expect((await call('PATCH', `/v1/PaymentLink/${link.id}`, { isVariableAmount: false, unitPrice: '9.99' })).json).toMatchObject({
      isVariableAmount: false,
      unitPrice: '9.99',
    });
  });

  it("another merchant's or mode's link is a 404", async () => {
    const link = await newLink();
    for (const key of [t.merchantB.keys.test.secret, t.merchantA.keys.live.secret]) {
      expect((await call('PATCH', `/v1/PaymentLink/${link.id}`, { name: 'Mine' }, key)).status).toBe(404);
      expect((await call('DELETE', `/v1/PaymentLink/${link.id}`, undefined, key)).status).toBe(404);
      expect((await call('POST', `/v1/PaymentLink/${link.id}/Activate`, undefined, key)).status).toBe(404);
      expect((await call('GET', `/v1/PaymentLink/${link.id}/EmbedCode`, undefined, key)).status).toBe(404);
    }
  });
});

describe('status', () => {
  it('Draft → Active → Inactive → Active; repeats answer 200 unchanged; a draft cannot be deactivated', async () => {
    const link = await newLink({ ...beans, status: 'Draft' });
    expect(link.status).toBe('Draft');
    expect((await call('POST', `/v1/PaymentLink/${link.id}/Deactivate`)).json.error).toMatchObject({ code: 'invalid_state' });
    expect((await call('POST', `/v1/PaymentLink/${link.id}/Activate`)).json.status).toBe('Active');
    expect((await call('POST', `/v1/PaymentLink/${link.id}/Activate`)).json.status).toBe('Active');
    expect((await call('POST', `/v1/PaymentLink/${link.id}/Deactivate`)).json.status).toBe('Inactive');
    expect((await call('POST', `/v1/PaymentLink/${link.id}/Deactivate`)).json.status).toBe('Inactive');
    expect((await call('POST', `/v1/PaymentLink/${link.id}/Activate`)).json.status).toBe('Active');
  });
});

describe('deleting a link', () => {
  it('deletes a link without payments: 204, then 404 everywhere; its code may be used again', async () => {
    const link = await newLink();
    const res = await call('DELETE', `/v1/PaymentLink/${link.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await call('DELETE', `/v1/PaymentLink/${link.id}`)).status).toBe(404);
    expect((await call('GET', `/v1/PaymentLink/${link.id}/EmbedCode`)).status).toBe(404);
  });
});

describe('the list', () => {
  it("filters, orders, counts and pages the tenant's links only", async () => {
    const key = (await t.newMerchant('Links list')).keys.test.secret;
    await newLink({ name: 'One', currencyCode: 'USD', unitPrice: '1' }, key);
    await newLink({ name: 'Two', currencyCode: 'EUR', unitPrice: '2', status: 'Draft' }, key);
    await newLink({ name: 'Three', currencyCode: 'USD', linkType: 'Donation', isVariableAmount: true }, key);
    const all = await call('GET', '/v1/PaymentLink?$count=true', undefined, key);
    expect(all.json['@odata.count']).toBe(3);
    expect(all.json.value.map((l: { name: string }) => l.name)).toEqual(['Three', 'Two', 'One']);
    const filtered = await call('GET', `/v1/PaymentLink?$filter=${encodeURIComponent("status eq 'Active' and linkType eq 'Donation'")}`, undefined, key);
    expect(filtered.json.value.map((l: { name: string }) => l.name)).toEqual(['Three']);
    const paged = await call('GET', '/v1/PaymentLink?$orderby=name asc&$top=2', undefined, key);
    expect(paged.json.value.map((l: { name: string }) => l.name)).toEqual(['One', 'Three']);
    expect(paged.json['@odata.nextLink']).toContain('$skip=2');
    expect(
      (await call('GET', `/v1/PaymentLink?$filter=${encodeURIComponent("isSubscriptionBased eq false and currencyCode eq 'EUR'")}`, undefined, key)).json.value,
    ).toHaveLength(1);
    expect((await call('GET', '/v1/PaymentLink?$filter=nope eq 1', undefined, key)).status).toBe(400);
    expect(
      (await call('GET', '/v1/PaymentLink', undefined, t.merchantA.keys.live.secret)).json.value.filter((l: { name: string }) =>
        ['One', 'Two', 'Three'].includes(l.name),
      ),
    ).toEqual([]);
  });
});
