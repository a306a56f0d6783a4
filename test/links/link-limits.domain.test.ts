// The limits of a payment link (commerce-api.md, "Payment link" and "Other status values"), called
// directly on the domain (server/domain/links/) on a database of its own: its uses (maxUses,
// maxUsesPerCustomer, usageMode), its validity window (validFrom, validTo), the amount a payer may
// choose (isVariableAmount, minAmount, maxAmount, suggestedAmount) and its status (draft, Active,
// inactive; Activate and Deactivate). A payment is counted as the app counts it when an invoice of
// the link is paid (countLinkPayment, the reactor to invoice.paid). The HTTP tests of the same
// rules are in payer.test.ts and merchant.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import type { InvoiceRow } from '../../server/domain/invoices/invoice.tables.js';
import { expireDueLinks } from '../../server/domain/links/link-expiry.js';
import type { LinkChanges } from '../../server/domain/links/link-fields.js';
import { createLinkInvoice, type LinkInvoiceOrder } from '../../server/domain/links/link-invoice.js';
import { countLinkPayment } from '../../server/domain/links/link-payments.js';
import { activateLink, createLink, deactivateLink, getLink, updateLinkFields } from '../../server/domain/links/link.service.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { AppError } from '../../server/shared/errors.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock('2026-05-04T09:00:00Z');
const HOUR = 3_600_000;
const context = { allowLoopbackWebhooks: false };
const database = useTestDatabase();
let tenant: Tenant;

beforeAll(async () => {
  const { merchant } = await createMerchant(database.db, clock, { name: `Link limits ${Date.now()}` });
  tenant = { merchantId: merchant.id, livemode: false };
});

/** A fixed-price link (10.00 USD) of the tenant, with `input` over it. */
const newLink = async (input: Partial<LinkChanges> = {}) =>
  (await createLink(database.db, clock, tenant, { name: 'Beans', currency: 'USD', unit_price: '10.00', ...input }, context)).link;
const payer = (email = 'ana@example.com', more: Partial<LinkInvoiceOrder> = {}): LinkInvoiceOrder => ({ email, firstName: 'Ana', lastName: 'Lopez', ...more });
const invoiceOf = (identifier: string, input: LinkInvoiceOrder = payer()) => createLinkInvoice(database.db, clock, identifier, input);
/** Counts a paid invoice on its link, in a transaction, as the app does when the invoice is paid. */
const paid = (invoice: InvoiceRow) => database.db.transaction().execute((trx) => countLinkPayment(trx, clock, invoice));
const linkNow = (id: number) => getLink(database.db, tenant, id);

/** The AppError a call fails with (the test fails if it does not). */
async function refusal(call: () => Promise<unknown>): Promise<AppError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
const refused = async (call: () => Promise<unknown>) => {
  const e = await refusal(call);
  return { code: e.code, param: e.param, message: e.message };
};

describe('uses', () => {
  it('maxUses: null means unlimited', async () => {
    const link = await newLink();
    for (let i = 0; i < 5; i++) await paid(await invoiceOf(link.identifier, payer(`payer-${i}@example.com`)));
    const after = await linkNow(link.id);
    expect([after.status, after.completed_payment_count, Number(after.total_amount_collected)]).toEqual(['active', 5, 50]);
    await invoiceOf(link.identifier);
  });

  it('maxUses: the link takes that many completed payments; the last one expires it, and an invoice made before cannot be counted', async () => {
    const link = await newLink({ max_uses: 2 });
    const [first, second, third] = [await invoiceOf(link.identifier), await invoiceOf(link.identifier), await invoiceOf(link.identifier)];
    await paid(first);
    expect(await linkNow(link.id)).toMatchObject({ status: 'active', completed_payment_count: 1 });
    await paid(second);
    expect(await linkNow(link.id)).toMatchObject({ status: 'expired', completed_payment_count: 2, invoice_count: 3 });
    expect(await refused(() => paid(third))).toMatchObject({ code: 'invoice_not_payable', message: expect.stringContaining('limit of payments') });
    const counted = await linkNow(link.id);
    expect([counted.completed_payment_count, Number(counted.total_amount_collected)]).toEqual([2, 20]);
    expect(await refused(() => invoiceOf(link.identifier))).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('expired') });
    // Spent: it cannot be activated until maxUses leaves room; raising it makes the link Inactive, then Activate opens it.
    expect((await refusal(() => activateLink(database.db, clock, tenant, link.id))).code).toBe('invalid_state');
    expect((await updateLinkFields(database.db, clock, tenant, link.id, { max_uses: 3 }, context)).link.status).toBe('inactive');
    expect((await activateLink(database.db, clock, tenant, link.id)).status).toBe('active');
    await invoiceOf(link.identifier);
  });

  it('usageMode SingleUse: maxUses is 1, whatever was sent', async () => {
    const link = await newLink({ usage_mode: 'single_use', max_uses: 5 });
    expect(link.max_uses).toBe(1);
    await paid(await invoiceOf(link.identifier));
    expect((await linkNow(link.id)).status).toBe('expired');
  });

  it('maxUsesPerCustomer: null means unlimited; a number limits the completed payments of each payer, known by email in any case', async () => {
    const open = await newLink();
    for (let i = 0; i < 3; i++) await paid(await invoiceOf(open.identifier));
    await invoiceOf(open.identifier);

    const link = await newLink({ max_uses_per_customer: 1 });
    const first = await invoiceOf(link.identifier, payer('Ana@Example.com'));
    const before = await invoiceOf(link.identifier, payer(' ana@example.COM '));
    await paid(first);
    expect(await refused(() => invoiceOf(link.identifier, payer('ANA@example.com')))).toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining('this email has reached its limit'),
    });
    expect(await refused(() => paid(before))).toMatchObject({ code: 'invoice_not_payable' });
    await paid(await invoiceOf(link.identifier, payer('bo@example.com')));
    expect(await linkNow(link.id)).toMatchObject({ status: 'active', completed_payment_count: 2 });
  });
});

describe('the validity window', () => {
  it('validFrom: before it the link takes no payments, saying when it opens', async () => {
    const opens = new Date(clock.now().getTime() + 2 * HOUR);
    const link = await newLink({ valid_from: opens });
    expect(await refused(() => invoiceOf(link.identifier))).toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining(`it opens on ${opens.toISOString()}`),
    });
    clock.advance(2 * 3600);
    await invoiceOf(link.identifier);
  });

  it('validTo: from it on the link takes no payments, and the due work marks it Expired, once', async () => {
    const link = await newLink({ valid_to: new Date(clock.now().getTime() + HOUR) });
    await invoiceOf(link.identifier);
    clock.advance(3600);
    // Past validTo it refuses at once, before any due work has run.
    expect((await linkNow(link.id)).status).toBe('active');
    expect(await refused(() => invoiceOf(link.identifier))).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('expired') });
    expect(await expireDueLinks(database.db, clock)).toBeGreaterThanOrEqual(1);
    expect((await linkNow(link.id)).status).toBe('expired');
    expect(await expireDueLinks(database.db, clock)).toBe(0);
    // A later validTo makes it valid again: Inactive, until the merchant activates it.
    const reopened = await updateLinkFields(database.db, clock, tenant, link.id, { valid_to: null }, context);
    expect(reopened.link.status).toBe('inactive');
  });

  it('validTo must follow validFrom', async () => {
    const from = clock.now();
    expect(await refused(() => newLink({ valid_from: from, valid_to: from }))).toMatchObject({ code: 'validation_error', param: 'validTo' });
    const link = await newLink();
    expect(await refused(() => updateLinkFields(database.db, clock, tenant, link.id, { valid_to: from }, context))).toMatchObject({ param: 'validTo' });
  });
});

describe('the amount a payer chooses', () => {
  it('isVariableAmount: the payer sends the amount, within minAmount..maxAmount (both included) and in the currency digits', async () => {
    const gift = await newLink({ unit_price: null, is_variable_amount: true, min_amount: '5', max_amount: '500' });
    expect(await refused(() => invoiceOf(gift.identifier))).toMatchObject({ code: 'parameter_missing', param: 'amount' });
    for (const amount of ['4.99', '500.01', '0']) {
      expect(await refused(() => invoiceOf(gift.identifier, payer(undefined, { amount }))), amount).toMatchObject({
        code: 'validation_error',
        param: 'amount',
      });
    }
    expect(await refused(() => invoiceOf(gift.identifier, payer(undefined, { amount: '5.001' })))).toMatchObject({ param: 'amount' });
    expect((await invoiceOf(gift.identifier, payer(undefined, { amount: '5' }))).total).toBe('5.0000');
    expect((await invoiceOf(gift.identifier, payer(undefined, { amount: '500' }))).total).toBe('500.0000');
    const any = await newLink({ unit_price: null, is_variable_amount: true });
    expect((await invoiceOf(any.identifier, payer(undefined, { amount: '0.01' }))).total).toBe('0.0100');
  });

  it('a fixed-price link takes no amount from the payer: its unitPrice x quantity', async () => {
    const link = await newLink({ unit_price: '12.50', quantity: '2' });
    expect(await refused(() => invoiceOf(link.identifier, payer(undefined, { amount: '1' })))).toMatchObject({ code: 'parameter_unknown', param: 'amount' });
    expect((await invoiceOf(link.identifier)).total).toBe('25.0000');
  });

  it('minAmount, maxAmount and suggestedAmount: more than zero, minAmount <= suggestedAmount <= maxAmount', async () => {
    const variable = { unit_price: null, is_variable_amount: true };
    const cases: [Partial<LinkChanges>, string][] = [
      [{ min_amount: '10', max_amount: '9.99' }, 'minAmount'],
      [{ min_amount: '10', suggested_amount: '9' }, 'suggestedAmount'],
      [{ max_amount: '10', suggested_amount: '11' }, 'suggestedAmount'],
      [{ min_amount: '0' }, 'minAmount'],
      [{ max_amount: '-1' }, 'maxAmount'],
      [{ min_amount: '1.005' }, 'minAmount'],
    ];
    for (const [input, param] of cases) {
      expect(await refused(() => newLink({ ...variable, ...input })), JSON.stringify(input)).toMatchObject({ code: 'validation_error', param });
    }
    const ok = await newLink({ ...variable, min_amount: '10', suggested_amount: '10', max_amount: '10' });
    expect([ok.min_amount, ok.suggested_amount, ok.max_amount].map(Number)).toEqual([10, 10, 10]);
  });
});

describe('status', () => {
  it('a draft and an inactive link take no payments, each saying why; an Active one does', async () => {
    const draft = await newLink({ status: 'draft' });
    expect(await refused(() => invoiceOf(draft.identifier))).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('not published') });
    const inactive = await newLink();
    await deactivateLink(database.db, clock, tenant, inactive.id);
    expect(await refused(() => invoiceOf(inactive.identifier))).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('deactivated') });
    expect((await newLink()).status).toBe('active');
  });

  it('Activate makes a draft or inactive link accept payments; an Active one stays Active', async () => {
    const draft = await newLink({ status: 'draft' });
    expect((await activateLink(database.db, clock, tenant, draft.id)).status).toBe('active');
    await invoiceOf(draft.identifier);
    const inactive = await newLink();
    await deactivateLink(database.db, clock, tenant, inactive.id);
    expect((await activateLink(database.db, clock, tenant, inactive.id)).status).toBe('active');
    expect((await activateLink(database.db, clock, tenant, inactive.id)).status).toBe('active');
    await invoiceOf(inactive.identifier);
  });

  it('Deactivate makes an active link unavailable to customers; a draft or expired link cannot be deactivated', async () => {
    const link = await newLink();
    expect((await deactivateLink(database.db, clock, tenant, link.id)).status).toBe('inactive');
    expect((await deactivateLink(database.db, clock, tenant, link.id)).status).toBe('inactive');
    expect((await refusal(() => invoiceOf(link.identifier))).code).toBe('invalid_state');
    const draft = await newLink({ status: 'draft' });
    expect(await refused(() => deactivateLink(database.db, clock, tenant, draft.id))).toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining('draft'),
    });
    const spent = await newLink({ max_uses: 1 });
    await paid(await invoiceOf(spent.identifier));
    expect((await refusal(() => deactivateLink(database.db, clock, tenant, spent.id))).code).toBe('invalid_state');
  });
});
