// The items and totals of a Commerce invoice, exactly (decimal.js, never floats). The rule, also
// in the contract (`InvoiceItem`) and docs/commerce-invoices.md:
// - amounts given (unit cost, discounts, shipping) carry at most the currency's minor digits;
// - two products are rounded, once each, half away from zero to the minor unit: unit cost x
//   quantity, and the line's subtotal x tax rate / 100;
// - everything else is a sum or difference of rounded amounts, so the invoice's totals are exact
//   sums of the lines shown; a `Discount` item counts negatively in those sums.
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, assertAmountInRange, minorUnits } from '../../shared/money.js';
import type { InvoiceLine } from './invoice.lines.js';

/** Kinds of item; a `Discount` item's totals are taken off the invoice's. */
export const ITEM_TYPES = ['Product', 'Service', 'Subscription', 'Fee', 'Discount', 'Tax'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** An item of a new invoice; amounts in the currency's units as exact decimal text. */
export interface NewInvoiceItem {
  name: string;
  description?: string | undefined;
  unitCost: string;
  quantity: number;
  discount?: string | undefined;
  /** Percent; the invoice's when absent. */
  taxRate?: number | undefined;
  shippingCost?: string | undefined;
  type?: ItemType | undefined;
}

export interface ItemTotals {
  lines: InvoiceLine[];
  subTotal: string;
  taxAmount: string;
  discount: string;
  shippingCost: string;
  totalCost: string;
}

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });
const roundHalfAway = (value: Decimal, digits: number) => value.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);

/** One item: its rounded amounts, in the currency's digits. */
function lineOf(currency: string, item: NewInvoiceItem, i: number, id: number, defaultRate: number | undefined): InvoiceLine {
  const digits = minorUnits(currency);
  const at = `items[${i}]`;
  const unit = amountToDecimal(item.unitCost, currency, `${at}.unitCost`);
  const discount = new Decimal(amountToDecimal(item.discount ?? '0', currency, `${at}.discount`));
  const shipping = new Decimal(amountToDecimal(item.shippingCost ?? '0', currency, `${at}.shippingCost`));
  const gross = roundHalfAway(new Decimal(item.quantity.toString()).times(unit), digits);
  if (discount.greaterThan(gross))
    throw invalid(`${at}.discount`, `${at}.discount (${discount.toFixed(digits)}) is more than unitCost x quantity (${gross.toFixed(digits)}).`);
  const subTotal = gross.minus(discount);
  const rate = item.taxRate ?? defaultRate ?? 0;
  const tax = roundHalfAway(subTotal.times(rate.toString()).dividedBy(100), digits);
  const total = subTotal.plus(tax).plus(shipping);
  assertAmountInRange(total, at, `${at}: unitCost x quantity with tax and shipping`);
  return {
    id,
    itemIdentifier: randomUUID(),
    type: item.type ?? 'Product',
    name: item.name,
    description: item.description ?? null,
    quantity: item.quantity,
    unitAmount: unit,
    taxRate: rate,
    discount: discount.toFixed(digits),
    shippingCost: shipping.toFixed(digits),
    subtotal: subTotal.toFixed(digits),
    taxAmount: tax.toFixed(digits),
    total: total.toFixed(digits),
  };
}

/** +1, or -1 for a `Discount` item. */
export const signOf = (line: Pick<InvoiceLine, 'type'>): number => (line.type === 'Discount' ? -1 : 1);

/**
 * The lines and totals of an itemized invoice. `ids` numbers the lines in order. Refuses (400
 * `validation_error`) a line discount over its unit cost x quantity, Discount items larger than
 * the rest, and an invoice discount over the items' total.
 */
export function computeItemTotals(
  currency: string,
  items: NewInvoiceItem[],
  ids: number[],
  options: { taxRate?: number | undefined; discount?: string | undefined; shippingCost?: string | undefined } = {},
): ItemTotals {
  const digits = minorUnits(currency);
  const lines = items.map((item, i) => lineOf(currency, item, i, ids[i]!, options.taxRate));
  const sum = (pick: (l: InvoiceLine) => string) => lines.reduce((acc, l) => acc.plus(new Decimal(pick(l)).times(signOf(l))), new Decimal(0));
  const subTotal = sum((l) => l.subtotal);
  const taxAmount = sum((l) => l.taxAmount);
  const itemsTotal = sum((l) => l.total);
  if (subTotal.isNegative() || taxAmount.isNegative() || itemsTotal.isNegative()) {
    throw invalid('items', 'The Discount items take off more than the other items add up to.');
  }
  const discount = new Decimal(amountToDecimal(options.discount ?? '0', currency, 'discount'));
  const shipping = new Decimal(amountToDecimal(options.shippingCost ?? '0', currency, 'shippingCost'));
  if (discount.greaterThan(itemsTotal))
    throw invalid('discount', `discount (${discount.toFixed(digits)}) is more than the items' total (${itemsTotal.toFixed(digits)}).`);
  const totalCost = itemsTotal.minus(discount).plus(shipping);
  assertAmountInRange(totalCost, 'items', 'The invoice total');
  const fixed = (d: Decimal) => d.toFixed(digits);
  return {
    lines,
    subTotal: fixed(subTotal),
    taxAmount: fixed(taxAmount),
    discount: fixed(discount),
    shippingCost: fixed(shipping),
    totalCost: fixed(totalCost),
  };
}
