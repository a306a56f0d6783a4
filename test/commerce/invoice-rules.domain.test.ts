// The Commerce invoice rules (commerce-api.md, "Invoice" and "Invoice status") beyond the totals
// (invoice-totals.unit.test.ts), called directly on the domain (server/domain/invoices/) on a
// database of its own: which statuses can be paid, how an invoice reaches each of them (create,
// send, pay, due date and validity on the clock, void), and the rules of its dates and identifiers.
// The HTTP tests are in invoices-*.test.ts and pay-invoice-*.test.ts.
import type { KyselyPlugin } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { InvoiceRow } from '../../server/domain/invoices/invoice.tables.js';
import { sendInvoiceTo } from '../../server/domain/invoices/invoice-send.js';
import { type NewItemizedInvoice, createItemizedInvoice, getInvoiceByReference } from '../../server/domain/invoices/itemized-invoice.js';
import { markOverdueInvoices } from '../../server/domain/invoices/invoice-billing.js';
import { expireDueInvoices } from '../../server/domain/invoices/invoice-expiry.js';
import { getInvoice, voidInvoice } from '../../server/domain/invoices/invoice.service.js';
import { assertPayable, lockPayableInvoice, payInvoice } from '../../server/domain/invoices/invoice-paying.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { AppError } from '../../server/shared/errors.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock('2026-06-01T09:00:00Z');
const HOUR = 3_600_000;
const links = { publicBaseUrl: 'https://pay.example.com' };
const database = useTestDatabase();
let tenant: Tenant;

beforeAll(async () => {
  const { merchant } = await createMerchant(database.db, clock, { name: `Invoice rules ${Date.now()}` });
  tenant = { merchantId: merchant.id, livemode: false };
});

/** An invoice of one item of 100.00 USD, with `input` over it. */
const newInvoice = (input: Partial<NewItemizedInvoice> = {}) =>
  createItemizedInvoice(database.db, clock, tenant, {
    currency: 'USD',
    items: [{ name: 'Work', unitCost: '100', quantity: 1 }],
    payer: { email: 'ana@example.com', address: {} },
    ...input,
  });
const reread = (invoice: InvoiceRow) => getInvoice(database.db, tenant, invoice.id);
/** Pays `amount` of the invoice, as a payment of it does: locked, checked payable, then recorded. */
const pay = (invoice: InvoiceRow, amount: string) =>
  database.db.transaction().execute(async (trx) => payInvoice(trx, clock, await lockPayableInvoice(trx, tenant, invoice.id), amount));
const inHours = (n: number) => new Date(clock.now().getTime() + n * HOUR);
const eventTypes = async (invoice: InvoiceRow) =>
  (await database.db.selectFrom('events').select(['type', 'data']).where('merchant_id', '=', tenant.merchantId).orderBy('seq').execute())
    .filter((e) => JSON.stringify(e.data).includes(`"id":${invoice.id},`))
    .map((e) => e.type);

/** "Can pay", as the status table has it: true, or the code of the refusal. */
async function canPay(invoice: InvoiceRow): Promise<true | string> {
  try {
    assertPayable(await reread(invoice));
    return true;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}
async function refusal(call: () => Promise<unknown>): Promise<AppError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('invoice status: whether the invoice can be paid', () => {
  it('Draft (not finalized): cannot be paid', async () => {
    const draft = await newInvoice({ draft: true });
    expect(draft.status).toBe('draft');
    expect(await canPay(draft)).toBe('invoice_not_payable');
  });

  it('Pending (created, awaiting payment): can be paid', async () => {
    const invoice = await newInvoice();
    expect(invoice.status).toBe('pending');
    expect(await canPay(invoice)).toBe(true);
  });

  it('Sent (sent to the customer): can be paid; a draft or pending invoice sent becomes Sent, and sending again keeps it', async () => {
    for (const invoice of [await newInvoice(), await newInvoice({ draft: true })]) {
      expect((await sendInvoiceTo(database.db, clock, links, tenant, invoice.id)).status).toBe('sent');
      expect(await canPay(invoice)).toBe(true);
      expect((await sendInvoiceTo(database.db, clock, links, tenant, invoice.id)).status).toBe('sent');
      expect(await eventTypes(invoice)).toEqual(['invoice.sent', 'invoice.sent']);
    }
  });

  it('PartiallyPaid (some amount received): can be paid, the rest; Paid (fully paid): cannot be paid', async () => {
    const invoice = await newInvoice();
    expect(await pay(invoice, '40.00')).toMatchObject({ status: 'partially_paid', amount_paid: '40.0000' });
    expect(await canPay(invoice)).toBe(true);
    expect(await pay(invoice, '60.00')).toMatchObject({ status: 'paid', amount_paid: '100.0000' });
    expect(await canPay(invoice)).toBe('invoice_not_payable');
    expect((await refusal(() => pay(invoice, '1.00'))).code).toBe('invoice_not_payable');
    expect(await eventTypes(invoice)).toEqual(['invoice.paid']);
  });

  it('Overdue (past due date): can still be paid; an unpaid invoice becomes Overdue once its paymentDueDate comes, with invoice.past_due', async () => {
    const due = await newInvoice({ dueDate: inHours(1) });
    const paidInTime = await newInvoice({ dueDate: inHours(1) });
    await pay(paidInTime, '100.00');
    clock.advance(3600);
    await markOverdueInvoices(database.db, clock);
    expect((await reread(due)).status).toBe('overdue');
    expect(await eventTypes(due)).toEqual(['invoice.past_due']);
    expect(await canPay(due)).toBe(true);
    expect((await reread(paidInTime)).status).toBe('paid');
    await markOverdueInvoices(database.db, clock);
    expect(await eventTypes(due)).toEqual(['invoice.past_due']);
    expect((await pay(due, '100.00')).status).toBe('paid');
  });

  it('Cancelled (cancelled by merchant): cannot be paid', async () => {
    const invoice = await newInvoice();
    expect((await voidInvoice(database.db, clock, tenant, invoice.id)).status).toBe('cancelled');
    expect(await canPay(invoice)).toBe('invoice_not_payable');
    expect((await refusal(() => sendInvoiceTo(database.db, clock, links, tenant, invoice.id))).code).toBe('invoice_not_payable');
  });

  it('Expired (past validity period): cannot be paid; an open invoice expires once its validTo comes, with invoice.expired, and stays Expired', async () => {
    const open = await newInvoice({ validTo: inHours(2) });
    const part = await newInvoice({ validTo: inHours(2) });
    await pay(part, '10.00');
    const paid = await newInvoice({ validTo: inHours(2) });
    await pay(paid, '100.00');
    clock.advance(2 * 3600);
    await expireDueInvoices(database.db, clock);
    for (const invoice of [open, part]) {
      expect((await reread(invoice)).status).toBe('expired');
      expect(await canPay(invoice)).toBe('invoice_not_payable');
      expect(await eventTypes(invoice)).toContain('invoice.expired');
    }
    expect((await reread(paid)).status).toBe('paid');
    // Final: a later due date or another run changes nothing.
    await markOverdueInvoices(database.db, clock);
    await expireDueInvoices(database.db, clock);
    expect((await reread(open)).status).toBe('expired');
    expect((await eventTypes(open)).filter((type) => type === 'invoice.expired')).toHaveLength(1);
  });
});

describe('the fields of an invoice', () => {
  it('validFrom, validTo, paymentDueDate: validTo follows validFrom, and paymentDueDate is not after validTo', async () => {
    const cases: [Partial<NewItemizedInvoice>, string][] = [
      [{ validFrom: inHours(2), validTo: inHours(1) }, 'validTo'],
      [{ validFrom: inHours(1), validTo: inHours(1) }, 'validTo'],
      [{ validTo: inHours(1), dueDate: inHours(2) }, 'paymentDueDate'],
    ];
    for (const [input, param] of cases) {
      const e = await refusal(() => newInvoice(input));
      expect([e.code, e.param], JSON.stringify(input)).toEqual(['validation_error', param]);
    }
    expect(await newInvoice({ validFrom: inHours(1), validTo: inHours(3), dueDate: inHours(3) })).toMatchObject({ status: 'pending' });
  });

  it('identifier: a UUID of its own for public links; public code: 128 random bits; referenceNumber: one invoice per reference of a merchant and mode', async () => {
    const [a, b] = [await newInvoice(), await newInvoice()];
    for (const invoice of [a, b]) expect(invoice.identifier).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const invoice of [a, b]) expect(Buffer.from(invoice.public_code, 'base64url')).toHaveLength(16);
    expect(a.identifier).not.toBe(b.identifier);
    expect(a.public_code).not.toBe(b.public_code);
    expect(a.reference).not.toBe(b.reference);
    const reference = `REF-RULES-${Date.now()}`;
    await newInvoice({ reference });
    const taken = await refusal(() => newInvoice({ reference }));
    expect([taken.code, taken.param]).toEqual(['parameter_invalid', 'referenceNumber']);
    const { merchant: other } = await createMerchant(database.db, clock, { name: `Invoice rules other ${Date.now()}` });
    const input = { currency: 'USD', items: [{ name: 'x', unitCost: '1', quantity: 1 }], reference };
    for (const owner of [
      { merchantId: other.id, livemode: false },
      { ...tenant, livemode: true },
    ])
      expect(await createItemizedInvoice(database.db, clock, owner, input)).toMatchObject({ reference });
  });

  it('getByReference: a known and an unknown public code run the same statements, and only the public code finds an invoice', async () => {
    const invoice = await newInvoice({ reference: `REF-CODE-${Date.now()}` });
    const statements = async (code: string) => {
      const seen: string[] = [];
      const recorder: KyselyPlugin = {
        transformQuery: (args) => (seen.push(database.db.getExecutor().compileQuery(args.node, args.queryId).sql), args.node),
        transformResult: async (args) => args.result,
      };
      const found = await getInvoiceByReference(database.db.withPlugin(recorder), code).catch((e: unknown) => e);
      return { seen, found };
    };
    const known = await statements(invoice.public_code);
    expect(known.found).toMatchObject({ invoice: { id: invoice.id }, merchant: { id: tenant.merchantId } });
    for (const code of [invoice.reference, invoice.identifier, 'A'.repeat(22)]) {
      const unknown = await statements(code);
      expect(unknown.found).toMatchObject({ code: 'invoice_not_found', status: 404 });
      expect(unknown.seen.sort()).toEqual(known.seen.sort());
    }
    expect(known.seen).toHaveLength(3);
  });
});
