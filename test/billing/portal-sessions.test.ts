// The customer portal (issue #14, section 2): `POST /v1/portal-sessions` and the portal's pages
// over HTTP, as a merchant's server and a customer's browser use them. The card on file, added in
// the portal, is in portal-card.test.ts; the subscription actions in portal-actions.test.ts.
import { describe, expect, it } from 'vitest';
import { ContractValidator, loadBundledContracts } from '../../conformance/validator.js';
import { hashSecret } from '../../server/shared/crypto.js';
import { loggedPath } from '../../server/http/request-context.js';
import { useTestServer } from '../support/server.js';
import { cardFields, formTokenOf, getPage, newCustomer, newPlan, newPortal, newSubscription, postForm } from '../support/portal.js';

const t = useTestServer({ rateLimitScale: 100 });
const contract = new ContractValidator(loadBundledContracts());

const createPortal = (body: unknown, key = t.merchantA.keys.test.secret, headers: Record<string, string> = {}) =>
  t.call('POST', '/v1/portal-sessions', { key, body, headers });

describe('POST /v1/portal-sessions', () => {
  it("answers 201 with the contract's shape: a ps_ id, the portal URL with a secret pt_ token, the returnUrl, and an expiry one hour after creation", async () => {
    const customer = await newCustomer(t, t.merchantA);
    const res = await createPortal({ clientId: customer.id, returnUrl: 'https://shop.example.com/account' });
    expect(res.status, res.text).toBe(201);
    expect(contract.validateResponse('createPortalSession', 201, res.headers, res.text)).toEqual([]);
    expect(res.json).toMatchObject({ object: 'portal_session', clientId: customer.id, returnUrl: 'https://shop.example.com/account', livemode: false });
    expect(res.json.id).toMatch(/^ps_test_[A-Za-z0-9]{24}$/);
    expect(res.json.url).toMatch(/\/portal\/pt_[A-Za-z0-9]{43}$/);
    expect(Date.parse(res.json.expiresAt) - Date.parse(res.json.createdAt)).toBe(3_600_000);
  });

  it('keeps only the SHA-256 hash of the token: the row holds no copy of it', async () => {
    const customer = await newCustomer(t, t.merchantA);
    const { session, token } = await newPortal(t, t.merchantA, customer.id);
    const row = await t.database.db.selectFrom('portal_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashSecret(token));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('without returnUrl answers returnUrl null; a live key makes a live session', async () => {
    const customer = await newCustomer(t, t.merchantA);
    const res = await createPortal({ clientId: customer.id }, t.merchantA.keys.live.secret);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ returnUrl: null, livemode: true });
    expect(res.json.id).toMatch(/^ps_live_/);
  });

  it("another merchant's or an unknown clientId answers 400 validation_error naming clientId", async () => {
    const foreign = await newCustomer(t, t.merchantB);
    for (const clientId of [foreign.id, 2147483000]) {
      const res = await createPortal({ clientId });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'clientId' });
      expect(contract.validateResponse('createPortalSession', 400, res.headers, res.text)).toEqual([]);
    }
  });

  it('refuses a missing clientId and a returnUrl that is not http(s) with 400 naming the field', async () => {
    const customer = await newCustomer(t, t.merchantA);
    const missing = await createPortal({ returnUrl: 'https://shop.example.com' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.param).toBe('clientId');
    const script = await createPortal({ clientId: customer.id, returnUrl: 'javascript:alert(1)' });
    expect(script.status).toBe(400);
    expect(script.json.error.param).toBe('returnUrl');
  });

  it('is refused with a publishable key (a server-key scope), with or without a client secret', async () => {
    const customer = await newCustomer(t, t.merchantA);
    const bare = await createPortal({ clientId: customer.id }, t.merchantA.keys.test.publishable);
    expect(bare.status).toBe(401);
    const withSecret = await createPortal({ clientId: customer.id }, t.merchantA.keys.test.publishable, { 'x-client-secret': 'cs_test_x_secret_y' });
    expect([401, 403]).toContain(withSecret.status);
    expect(await t.database.db.selectFrom('portal_sessions').select('id').where('customer_id', '=', customer.id).execute()).toEqual([]);
  });

  it('the request log never shows a portal token', () => {
    expect(loggedPath('/portal/pt_abcDEF123/card/3ds/3ds_x?done=1')).toBe('/portal/pt_[redacted]/card/3ds/3ds_x');
  });
});

describe('the portal page', () => {
  it("shows the customer's subscriptions of the session's mode, the card on file, the invoices with PDF links, and the back link", async () => {
    const plan = await newPlan(t, t.merchantA, { amount: 12.5 });
    const customer = await newCustomer(t, t.merchantA);
    const paid = await newSubscription(t, t.merchantA, plan.id, customer.id);
    const trial = await newSubscription(t, t.merchantA, plan.id, customer.id, { trialDays: 14 });
    const live = await newSubscription(t, t.merchantA, plan.id, customer.id, { livemode: true });
    const { path } = await newPortal(t, t.merchantA, customer.id, { returnUrl: 'https://shop.example.com/account?x=1&y=2' });
    const page = await getPage(t, path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.html).toContain(`data-subscription="${paid.id}"`);
    expect(page.html).toContain(`data-subscription="${trial.id}"`);
    expect(page.html).not.toContain(`data-subscription="${live.id}"`);
    expect(page.html).toContain('Free trial');
    expect(page.html).toContain('$12.50 every month');
    expect(page.html).toMatch(/Mastercard<\/strong> •••• 4444 · expires 12\/\d{4}/);
    expect(page.html).toContain('href="https://shop.example.com/account?x=1&#38;y=2"');
    const invoice = await t.database.db
      .selectFrom('invoices')
      .select(['id', 'invoice_number'])
      .where('subscription_id', '=', paid.id)
      .executeTakeFirstOrThrow();
    expect(page.html).toContain(invoice.invoice_number);
    expect(page.html).toContain(`href="${path}/invoices/${invoice.id}.pdf"`);
  });

  it('an unknown token shows a 404 error page; a malformed one too', async () => {
    for (const token of [`pt_${'A'.repeat(43)}`, 'nope', 'pt_<script>']) {
      const page = await getPage(t, `/portal/${encodeURIComponent(token)}`);
      expect(page.status).toBe(404);
      expect(page.html).toContain('Link not valid');
    }
  });

  it("expires one hour after creation by the merchant's sandbox clock: then it shows the expired page and accepts no change", async () => {
    const merchant = await t.newMerchant('Clocked');
    const customer = await newCustomer(t, merchant);
    const { path } = await newPortal(t, merchant, customer.id);
    const before = await getPage(t, path);
    expect(before.status).toBe(200);
    const advanced = await t.call('POST', '/v1/test-helpers/clock/advance', { key: merchant.keys.test.secret, body: { seconds: 3601 } });
    expect(advanced.status, advanced.text).toBe(200);
    const after = await getPage(t, path);
    expect(after.status).toBe(410);
    expect(after.html).toContain('Link expired');
    const post = await postForm(t, `${path}/card`, { form: formTokenOf(before.html), ...cardFields('4242424242424242') });
    expect(post.status).toBe(410);
    expect(await t.database.db.selectFrom('payment_methods').select('id').where('customer_id', '=', customer.id).execute()).toEqual([]);
  });
});

describe('invoice PDFs', () => {
  it("serves the customer's own invoice as a PDF; another customer's, another merchant's or another mode's invoice id is the not-found page, never the document", async () => {
    const plan = await newPlan(t, t.merchantA);
    const customer = await newCustomer(t, t.merchantA);
    const mine = await newSubscription(t, t.merchantA, plan.id, customer.id);
    const other = await newSubscription(t, t.merchantA, plan.id, (await newCustomer(t, t.merchantA)).id);
    const live = await newSubscription(t, t.merchantA, plan.id, customer.id, { livemode: true });
    const foreignPlan = await newPlan(t, t.merchantB);
    const foreign = await newSubscription(t, t.merchantB, foreignPlan.id, (await newCustomer(t, t.merchantB)).id);
    const invoiceOf = async (subscriptionId: number) =>
      (await t.database.db.selectFrom('invoices').select('id').where('subscription_id', '=', subscriptionId).executeTakeFirstOrThrow()).id;
    const { path } = await newPortal(t, t.merchantA, customer.id);
    const res = await fetch(`${t.url}${path}/invoices/${await invoiceOf(mine.id)}.pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    for (const id of [await invoiceOf(other.id), await invoiceOf(live.id), await invoiceOf(foreign.id), 2147483647]) {
      const page = await getPage(t, `${path}/invoices/${id}.pdf`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.html).toContain('There is no such item in your account.');
    }
    for (const file of ['abc.pdf', '1.txt', '99999999999.pdf']) expect((await getPage(t, `${path}/invoices/${file}`)).status).toBe(404);
  });
});
