// An invoice as the Commerce interface shows it: numbers rounded to the currency, PascalCase
// statuses, the default expansion (merchant, location, items, payer, payee) always present.
import { createHash } from 'node:crypto';
import type { components } from '../../../../generated/commerce.js';
import type { InvoiceRow } from '../../../domain/invoices/invoice.tables.js';
import type { Merchant, PaymentOption } from '../../../domain/merchants/merchant.tables.js';
import type { MerchantLocation } from '../../../domain/merchants/identity.tables.js';
import type { NewItemizedInvoice } from '../../../domain/invoices/itemized-invoice.js';
import type { NewInvoiceItem } from '../../../domain/invoices/item-totals.js';
import { amountDue, type InvoiceLine } from '../../../domain/invoices/invoice.lines.js';
import { decimalToAmount } from '../../../shared/money.js';
import { INVOICE_STATUS } from '../wire-values.js';
import { locationView } from './merchant.view.js';

type Schemas = components['schemas'];

/** A stable UUID for a line stored before lines had their own identifier. */
function derivedUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function itemView(
  invoice: InvoiceRow,
  line: Partial<InvoiceLine> & { name: string; quantity: number; unitAmount: string | number },
  index: number,
): Schemas['InvoiceItem'] {
  const money = (value: string | number | undefined) => decimalToAmount(String(value ?? '0'), invoice.currency);
  const id = line.id ?? index + 1;
  return {
    id,
    itemIdentifier: line.itemIdentifier ?? derivedUuid(`${invoice.identifier}:${id}`),
    name: line.name,
    description: line.description ?? null,
    unitCost: money(line.unitAmount),
    quantity: line.quantity,
    discount: money(line.discount),
    taxRate: line.taxRate ?? 0,
    taxAmount: money(line.taxAmount),
    subTotal: money(line.subtotal ?? line.unitAmount),
    totalCost: money(line.total ?? line.subtotal ?? line.unitAmount),
    shippingCost: money(line.shippingCost),
    currencyCode: invoice.currency,
    invoiceItemTypeId: (line.type as Schemas['InvoiceItemType'] | undefined) ?? 'Product',
  };
}

const party = (p: Partial<Schemas['CounterPartyInfo']>): Schemas['CounterPartyInfo'] => ({
  firstName: p.firstName ?? null,
  lastName: p.lastName ?? null,
  email: p.email ?? null,
  phone: p.phone ?? null,
  addressLine1: p.addressLine1 ?? null,
  addressLine2: p.addressLine2 ?? null,
  city: p.city ?? null,
  region: p.region ?? null,
  postalCode: p.postalCode ?? null,
  country: p.country ?? null,
});

function sourceInfo(invoice: InvoiceRow): Schemas['CounterPartyInfo'] | null {
  const known = invoice.payer_email ?? invoice.payer_first_name ?? invoice.payer_last_name ?? invoice.payer_phone ?? invoice.payer_address;
  if (known === null) return null;
  return party({
    firstName: invoice.payer_first_name,
    lastName: invoice.payer_last_name,
    email: invoice.payer_email,
    phone: invoice.payer_phone,
    ...invoice.payer_address,
  });
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The whole Commerce invoice; `location` is its issuing location (`merchantLocation`). */
export function commerceInvoiceView(invoice: InvoiceRow, merchant: Merchant, publicBaseUrl: string, location: MerchantLocation | null): Schemas['Invoice'] {
  const money = (value: string) => decimalToAmount(value, invoice.currency);
  return {
    id: invoice.id,
    identifier: invoice.identifier,
    referenceNumber: invoice.reference,
    code: invoice.public_code,
    invoiceNumber: invoice.invoice_number,
    description: invoice.description,
    notes: invoice.notes,
    merchant: { id: merchant.id, name: merchant.name, email: merchant.email, media: merchant.logo_url ? [{ mediaUrl: merchant.logo_url }] : [] },
    merchantLocation: location && locationView(location),
    status: INVOICE_STATUS[invoice.status as keyof typeof INVOICE_STATUS] ?? 'Pending',
    totalDue: money(amountDue(invoice).toFixed()),
    totalPaid: money(invoice.amount_paid),
    subTotal: money(invoice.subtotal),
    taxRate: invoice.tax_rate === null ? 0 : Number(invoice.tax_rate),
    taxAmount: money(invoice.tax_amount),
    discount: money(invoice.discount),
    shippingCost: money(invoice.shipping_cost),
    totalCost: money(invoice.total),
    currencyCode: invoice.currency,
    validFrom: iso(invoice.valid_from),
    validTo: iso(invoice.valid_to),
    paymentDueDate: iso(invoice.due_date),
    items: (invoice.line_items as InvoiceLine[]).map((line, i) => itemView(invoice, line, i)),
    sourceInfo: sourceInfo(invoice),
    destinationInfo: party({ firstName: merchant.name, email: merchant.email }),
    cancelUrl: invoice.cancel_url,
    successUrl: invoice.success_url,
    paymentUrl: `${publicBaseUrl}/invoice/${invoice.identifier}`,
    qrCodeUrl: `/v1/invoice/qrcode/${invoice.identifier}`,
    createdDateTime: invoice.created_at.toISOString(),
  };
}

/** A payment option of the merchant, for an invoice in `currency`. */
export const paymentOptionView = (option: PaymentOption, currency: string): Schemas['PaymentOption'] => ({
  id: option.id,
  code: option.code,
  name: option.name,
  paymentMethodId: option.method as Schemas['PaymentMethod'],
  paymentProviderTypeId: 'Internal',
  paymentChannel: 'Online',
  isEnabled: option.enabled,
  isVerificationRequired: false,
  currencyCode: currency,
});

const decimal = (amount: number | undefined) => (amount === undefined ? undefined : String(amount));
const date = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/** One item of the create request as the domain's: amounts as exact decimal text. */
const newItem = (item: Schemas['InvoiceCreateRequest']['items'][number]): NewInvoiceItem => ({
  name: item.name,
  description: item.description,
  unitCost: String(item.unitCost),
  quantity: item.quantity,
  discount: decimal(item.discount),
  taxRate: item.taxRate,
  shippingCost: decimal(item.shippingCost),
  type: item.invoiceItemTypeId,
});

/** The create request as the domain's new invoice: amounts as exact decimal text, dates as Dates. */
export function commerceInvoiceInput(body: Schemas['InvoiceCreateRequest']): NewItemizedInvoice {
  const { firstName, lastName, email, phone, ...address } = body.sourceInfo ?? {};
  return {
    currency: body.currencyCode,
    items: body.items.map(newItem),
    description: body.description,
    notes: body.notes,
    taxRate: body.taxRate,
    discount: decimal(body.discount),
    shippingCost: decimal(body.shippingCost),
    dueDate: date(body.paymentDueDate),
    validFrom: date(body.validFrom),
    validTo: date(body.validTo),
    reference: body.referenceNumber,
    successUrl: body.successUrl,
    cancelUrl: body.cancelUrl,
    draft: body.isDraft,
    merchantLocationId: body.merchantLocationId,
    payer: body.sourceInfo ? { firstName, lastName, email, phone, address } : undefined,
  };
}
