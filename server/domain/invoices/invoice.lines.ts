import { Decimal } from 'decimal.js';
import { assertAmountInRange, minorUnits } from '../../shared/money.js';

/** One line of an invoice as stored (amounts are exact decimal strings in the invoice's currency). */
export interface InvoiceLine {
  id: number;
  name: string;
  description: string | null;
  quantity: number;
  unitAmount: string;
  /** Percent; the line's own or the invoice's, null for none. */
  taxRate: number | null;
  subtotal: string;
  taxAmount: string;
  total: string;
  /** Commerce items only: public identifier, item type, the line's discount and shipping. */
  itemIdentifier?: string;
  type?: string;
  discount?: string;
  shippingCost?: string;
}

/** A line to price: its quantity and exact unit amount, its own tax rate when it has one. */
export interface NewInvoiceLine {
  name: string;
  description?: string | undefined;
  quantity: number;
  /** Exact decimal string. */
  unitAmount: string;
  taxRate?: number | undefined;
}

export interface InvoiceTotals {
  lines: InvoiceLine[];
  subtotal: string;
  taxAmount: string;
  discount: string;
  total: string;
}

const round = (value: Decimal, currency: string) => value.toDecimalPlaces(minorUnits(currency), Decimal.ROUND_HALF_UP);

/**
 * An invoice's lines and totals, exactly: each line's subtotal is quantity × unit amount and its
 * tax subtotal × rate, each rounded half-up to the currency's minor unit; the invoice adds the
 * lines up, then takes the discount off. `ids` gives each line its id, in order. A line or a total
 * of 1,000,000,000,000 or more is refused (400 `parameter_invalid`), like an amount sent so large.
 */
export function computeInvoice(
  currency: string,
  inputs: NewInvoiceLine[],
  ids: number[],
  options: { taxRate?: number | undefined; discount?: string | undefined } = {},
): InvoiceTotals {
  const digits = minorUnits(currency);
  let subtotal = new Decimal(0);
  let taxAmount = new Decimal(0);
  const lines = inputs.map((line, i): InvoiceLine => {
    const rate = line.taxRate ?? options.taxRate ?? null;
    const lineSubtotal = round(new Decimal(line.quantity.toString()).times(line.unitAmount), currency);
    const lineTax = rate === null ? new Decimal(0) : round(lineSubtotal.times(rate.toString()).dividedBy(100), currency);
    assertAmountInRange(lineSubtotal.plus(lineTax), `lineItems.${i}`, `lineItems.${i}: quantity × unitAmount (with tax)`);
    subtotal = subtotal.plus(lineSubtotal);
    taxAmount = taxAmount.plus(lineTax);
    return {
      id: ids[i]!,
      name: line.name,
      description: line.description ?? null,
      quantity: line.quantity,
      unitAmount: new Decimal(line.unitAmount).toFixed(digits),
      taxRate: rate,
      subtotal: lineSubtotal.toFixed(digits),
      taxAmount: lineTax.toFixed(digits),
      total: lineSubtotal.plus(lineTax).toFixed(digits),
    };
  });
  const discount = new Decimal(options.discount ?? '0');
  assertAmountInRange(subtotal.plus(taxAmount), 'lineItems', 'The invoice total (all lines with tax)');
  return {
    lines,
    subtotal: subtotal.toFixed(digits),
    taxAmount: taxAmount.toFixed(digits),
    discount: discount.toFixed(digits),
    total: subtotal.plus(taxAmount).minus(discount).toFixed(digits),
  };
}

/** What is still owed on an invoice. */
export const amountDue = (invoice: { total: string; amount_paid: string }): Decimal => Decimal.max(new Decimal(invoice.total).minus(invoice.amount_paid), 0);
