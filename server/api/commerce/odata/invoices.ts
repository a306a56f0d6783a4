// The Commerce invoice list as an OData resource, declared once: each wire field, its column, its
// type and what a caller may do with it. Fields without a column of their own (the expanded
// navigations, the links) can only be selected.
import { defineResource, type FieldSpec } from '../../../odata/index.js';
import { INVOICE_STATUS, storedOf } from '../wire-values.js';

const money = (column: string): FieldSpec => ({ column, type: 'decimal' });
const selectOnly = (column: string): FieldSpec => ({ column, type: 'string', filter: false, sort: false });

/** The navigations of an invoice; every answer carries them all, `$expand` may only name them. */
export const INVOICE_NAVIGATIONS = ['merchant', 'merchantLocation', 'items', 'sourceInfo', 'destinationInfo'] as const;

export const invoiceResource = defineResource({
  table: 'invoices',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    identifier: { column: 'identifier', type: 'guid' },
    referenceNumber: { column: 'reference', type: 'string' },
    code: { column: 'public_code', type: 'string' },
    invoiceNumber: { column: 'invoice_number', type: 'string' },
    description: { column: 'description', type: 'string', nullable: true },
    notes: { column: 'notes', type: 'string', nullable: true, sort: false },
    status: {
      column: 'status',
      // A rejected invoice reads as Cancelled, so `Status eq 'Cancelled'` finds it too.
      type: { enum: [...new Set(Object.values(INVOICE_STATUS))], toDb: (wire) => storedOf(INVOICE_STATUS, wire), alsoStoredAs: { Cancelled: ['rejected'] } },
    },
    totalDue: money('total_due'),
    totalPaid: money('amount_paid'),
    subTotal: money('subtotal'),
    taxRate: { column: 'tax_rate', type: 'decimal', nullable: true },
    taxAmount: money('tax_amount'),
    discount: money('discount'),
    shippingCost: money('shipping_cost'),
    totalCost: money('total'),
    currencyCode: { column: 'currency', type: 'string' },
    validFrom: { column: 'valid_from', type: 'datetime', nullable: true },
    validTo: { column: 'valid_to', type: 'datetime', nullable: true },
    paymentDueDate: { column: 'due_date', type: 'datetime', nullable: true },
    createdDateTime: { column: 'created_at', type: 'datetime' },
    cancelUrl: selectOnly('cancel_url'),
    successUrl: selectOnly('success_url'),
    paymentUrl: selectOnly('identifier'),
    qrCodeUrl: selectOnly('identifier'),
    merchant: selectOnly('merchant_id'),
    merchantLocation: selectOnly('merchant_id'),
    items: selectOnly('line_items'),
    sourceInfo: selectOnly('payer_email'),
    destinationInfo: selectOnly('merchant_id'),
  },
  expand: INVOICE_NAVIGATIONS,
});
