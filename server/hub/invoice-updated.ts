// The hub's one event: `InvoiceUpdated({invoiceId, status})`, in the Commerce interface's words,
// from the notification the database sends when an invoice's status changes (migration 0015).
import type { components } from '../../generated/commerce.js';
import { INVOICE_STATUS } from '../api/commerce/wire-values.js';
import type { InvoiceOwner } from './audience.js';

/** The hub method clients register a handler for: `connection.on('InvoiceUpdated', …)`. */
export const INVOICE_UPDATED = 'InvoiceUpdated';

type InvoiceStatus = components['schemas']['InvoiceStatus'];

/** The argument of `InvoiceUpdated`: the invoice's numeric id and its status on the Commerce wire. */
export interface InvoiceUpdated {
  invoiceId: number;
  status: InvoiceStatus;
}

/** Stored status (snake_case) → the Commerce interface's `InvoiceStatus`. */
const WIRE_STATUS: Readonly<Record<string, InvoiceStatus>> = INVOICE_STATUS;

/** The invoice's status on the wire; undefined for a status the Commerce interface has no word for. */
export const wireStatus = (stored: string): InvoiceStatus | undefined => WIRE_STATUS[stored];

/** A change as the trigger writes it: `{id, merchant_id, livemode, identifier, status}`. */
export interface InvoiceChange extends InvoiceOwner {
  event: InvoiceUpdated;
}

/** Reads a notification's payload; undefined when it is not a change the hub can announce. */
export function readInvoiceChange(payload: string): InvoiceChange | undefined {
  let row: Record<string, unknown>;
  try {
    row = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { id, merchant_id: merchantId, livemode, identifier, status } = row ?? {};
  if (typeof id !== 'number' || typeof merchantId !== 'number' || typeof livemode !== 'boolean' || typeof identifier !== 'string' || typeof status !== 'string')
    return undefined;
  const wire = wireStatus(status);
  if (!wire) return undefined;
  return { tenant: { merchantId, livemode }, identifier: identifier.toLowerCase(), event: { invoiceId: id, status: wire } };
}
