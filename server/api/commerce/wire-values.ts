// The Commerce interface's spelling of stored values: PascalCase words for the lower-case, snake_case
// values the domain keeps (`partially_paid` → `PartiallyPaid`). Views write them, the OData
// resources read them back for `$filter`, and the Checkout events and the hub reuse the status words.
import type { Plan } from '../../domain/catalog/catalog.tables.js';
import type { PaymentLinkStatus, PaymentLinkStyle, PaymentLinkType, PaymentLinkUsageMode } from '../../domain/links/link.tables.js';
import type { SubscriptionStatus } from '../../domain/billing/subscription.tables.js';

/** Stored invoice status → the Commerce wire status. */
export const INVOICE_STATUS = {
  draft: 'Draft',
  pending: 'Pending',
  sent: 'Sent',
  partially_paid: 'PartiallyPaid',
  paid: 'Paid',
  overdue: 'Overdue',
  cancelled: 'Cancelled',
  expired: 'Expired',
  // The Commerce status list has no rejected invoice: one its payer declined reads as cancelled.
  rejected: 'Cancelled',
} as const;
export type WireInvoiceStatus = (typeof INVOICE_STATUS)[keyof typeof INVOICE_STATUS];

/** Stored subscription status → the PascalCase status of the Commerce wire and of Checkout's subscription events. */
export const SUBSCRIPTION_STATUS = {
  active: 'Active',
  trialing: 'Trialing',
  past_due: 'PastDue',
  unpaid: 'Unpaid',
  paused: 'Paused',
  canceled: 'Canceled',
  pending: 'Pending',
} as const satisfies Record<SubscriptionStatus, string>;

/** The payment links' stored values → their wire words. */
export const LINK_STATUS: Record<PaymentLinkStatus, string> = { draft: 'Draft', active: 'Active', inactive: 'Inactive', expired: 'Expired' };
export const LINK_USAGE_MODE: Record<PaymentLinkUsageMode, string> = { single_use: 'SingleUse', multi_use: 'MultiUse' };
export const LINK_TYPE: Record<PaymentLinkType, string> = { standard: 'Standard', donation: 'Donation', subscription: 'Subscription' };
export const LINK_STYLE: Record<PaymentLinkStyle, string> = { button: 'Button', link: 'Link', qr_code: 'QrCode' };

/** Commerce billing type → stored billing type. */
export const BILLING_TYPES = { Recurring: 'recurring', OneTime: 'one_time', Usage: 'usage' } as const satisfies Record<string, Plan['billing_type']>;

/** The stored value of a wire value of `map` (stored → wire). */
export function storedOf<S extends string>(map: Record<S, string>, wire: string): S {
  const entry = Object.entries(map).find(([, w]) => w === wire);
  if (!entry) throw new Error(`Unknown value ${wire}`);
  return entry[0] as S;
}
