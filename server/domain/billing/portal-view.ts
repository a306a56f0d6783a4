// What the customer portal shows: the customer's subscriptions, invoices and card on file, of the
// portal session's mode only, and the plans a subscription may switch to.
import type { Db } from '../../db/database.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { Customer } from '../customers/customer.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { PaymentMethodRow } from '../payments/payment.tables.js';
import type { PortalSessionRow } from './portal.tables.js';
import type { SubscriptionDetails } from './subscription.tables.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import { listPlans } from '../catalog/catalog.service.js';
import { getCustomer } from '../customers/customer.service.js';
import { getInvoice, listInvoices } from '../invoices/invoice.service.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { defaultCardOnFile } from '../payments/cards-on-file.js';
import { findSubscription, findSubscriptions } from './subscription.repository.js';
import { unbilledUsageOf } from './usage.repository.js';

/** How many subscriptions and invoices the portal lists (newest first). */
export const PORTAL_LIST_LIMIT = 50;

export interface PortalOverview {
  merchant: Merchant;
  customer: Customer;
  subscriptions: SubscriptionDetails[];
  invoices: InvoiceRow[];
  card: PaymentMethodRow | null;
  /** The ids of the subscriptions that have a plan to switch to. */
  switchable: Set<number>;
  /** Units used and not billed yet (this period so far), per metered subscription item. */
  usage: Map<number, string>;
}

/** Everything the portal's main page shows, for the session's customer in the session's mode. */
export async function portalOverview(db: Db, session: PortalSessionRow): Promise<PortalOverview> {
  const tenant = tenantOf(session);
  const [merchant, customer, subscriptions, invoices, card, plans] = await Promise.all([
    getMerchant(db, session.merchant_id),
    getCustomer(db, tenant, session.customer_id),
    findSubscriptions(db, tenant, { clientId: session.customer_id, limit: PORTAL_LIST_LIMIT - 1 }),
    listInvoices(db, tenant, { customerId: session.customer_id, limit: PORTAL_LIST_LIMIT }),
    defaultCardOnFile(db, tenant, session.customer_id),
    availablePlans(db, session),
  ]);
  const switchable = new Set(subscriptions.filter((s) => switchTargets(plans, s).length > 0).map((s) => s.id));
  const metered = subscriptions.filter((s) => s.items.some((item) => item.is_metered)).map((s) => s.id);
  const usage = await unbilledUsageOf(db, tenant, metered);
  return { merchant, customer, subscriptions, invoices: invoices.data.filter((i) => i.status !== 'draft'), card: card ?? null, switchable, usage };
}

const notYours = (what: string): never => {
  throw new AppError('resource_not_found', { message: `No such ${what} in this portal.` });
};

/** A subscription of the portal's customer in its mode; anyone else's (or another mode's) is 404, exactly like a missing one. */
export async function portalSubscription(db: Db, session: PortalSessionRow, id: number): Promise<SubscriptionDetails> {
  const subscription = await findSubscription(db, tenantOf(session), id);
  if (!subscription || subscription.customer_id !== session.customer_id) return notYours('subscription');
  return subscription;
}

/** An invoice of the portal's customer in its mode (drafts are not shown); anyone else's is 404. */
export async function portalInvoice(db: Db, session: PortalSessionRow, id: number): Promise<InvoiceRow> {
  const invoice = await getInvoice(db, tenantOf(session), id).catch(() => undefined);
  if (!invoice || invoice.customer_id !== session.customer_id || invoice.status === 'draft') return notYours('invoice');
  return invoice;
}

/** Statuses in which a plan can be switched (the plan change's own rule; it checks again). */
const SWITCHABLE = ['active', 'trialing'];

/**
 * The plans a subscription may switch to: the merchant's other available, active plans in its
 * currency and billing interval (a plan change keeps the interval), none unless it is active or trialing.
 */
export async function switchablePlans(db: Db, subscription: SubscriptionDetails): Promise<Plan[]> {
  return switchTargets(await availablePlans(db, subscription), subscription);
}

/** The merchant's available, active plans (the newest 100). */
async function availablePlans(db: Db, owner: { merchant_id: number; livemode: boolean }): Promise<Plan[]> {
  return (await listPlans(db, tenantOf(owner), { limit: 100, includeArchived: false })).data.filter((p) => p.active && p.status === 'available');
}

function switchTargets(plans: Plan[], s: SubscriptionDetails): Plan[] {
  if (!SWITCHABLE.includes(s.status) || s.items.some((item) => item.is_metered)) return [];
  return plans.filter(
    (p) =>
      p.billing_type === 'recurring' && p.currency === s.currency && p.interval === s.interval && p.interval_count === s.interval_count && p.id !== s.plan_id,
  );
}
