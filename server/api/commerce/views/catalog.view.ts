// The subscription catalog as the Commerce interface shows it: PascalCase values, decimals as
// exact strings, `timeUnit`/`timeInterval`. The Checkout interface shows the same rows through
// its own views (server/api/checkout/views/catalog.view.ts).
import type { components } from '../../../../generated/commerce.js';
import type { InventoryItemStatus, Plan, Product } from '../../../domain/catalog/catalog.tables.js';
import type { CatalogPlan, ExpandedPlan } from '../../../domain/catalog/catalog-lists.js';
import type { InventoryItemDetails } from '../../../domain/catalog/inventory.service.js';
import type { NewPlan, PlanChanges } from '../../../domain/catalog/catalog.service.js';
import { decimalToString } from '../../../shared/money.js';
import { BILLING_TYPES } from '../wire-values.js';

type Schemas = components['schemas'];

const pascal = <T extends string>(value: string) => (value.charAt(0).toUpperCase() + value.slice(1)) as T;
/** Stored billing type → this interface's word. */
export const BILLING_TYPE_OF = Object.fromEntries(Object.entries(BILLING_TYPES).map(([wire, stored]) => [stored, wire])) as Record<
  Plan['billing_type'],
  Schemas['SubscriptionPlanBillingType']
>;

/** A product; its `media` when asked for (always on create and update). */
export function catalogProductView(p: Product, options: { media: boolean }): Schemas['SubscriptionProduct'] {
  return {
    id: p.id,
    merchantId: p.merchant_id,
    name: p.name,
    description: p.description,
    subscriptionProductType: pascal(p.type),
    ...(options.media ? { media: p.media.map((m) => ({ mediaUrl: m.mediaUrl, isPrimary: m.isPrimary })) } : {}),
    createdDateTime: p.created_at.toISOString(),
  };
}

/** A plan; its `product` (with media) when expanded. */
export function catalogPlanView(p: CatalogPlan, product?: Product): Schemas['SubscriptionPlan'] {
  return {
    id: p.id,
    merchantId: p.merchant_id,
    productId: p.product_id,
    productName: p.product_name,
    name: p.name,
    description: p.description,
    details: p.details,
    status: pascal(p.listing_status),
    amount: decimalToString(p.amount, p.currency),
    currency: p.currency,
    timeUnit: pascal(p.interval),
    timeInterval: p.interval_count,
    subscriptionBillingType: BILLING_TYPE_OF[p.billing_type],
    validFrom: p.effective_valid_from.toISOString(),
    validTo: p.valid_to === null ? null : p.valid_to.toISOString(),
    createdDateTime: p.created_at.toISOString(),
    ...(product ? { product: catalogProductView(product, { media: true }) } : {}),
  };
}

export const expandedPlanView = (e: ExpandedPlan): Schemas['SubscriptionPlan'] => catalogPlanView(e.plan, e.product);

/** An inventory item. */
export const inventoryItemView = (i: InventoryItemDetails): Schemas['SubscriptionInventoryItem'] => ({
  id: i.id,
  productId: i.product_id,
  productName: i.product_name,
  serialNumber: i.serial_number,
  status: pascal(i.status),
  createdDateTime: i.created_at.toISOString(),
});

const lower = <T extends string>(value: string) => value.toLowerCase() as T;
const date = (value: string | undefined) => (value === undefined ? undefined : new Date(value));

/** A product create or update request → the domain's input. */
export const productInput = (b: Schemas['SubscriptionProductUpdateRequest']) => ({
  name: b.name,
  description: b.description,
  type: b.subscriptionProductType === undefined ? undefined : lower<Product['type']>(b.subscriptionProductType),
  media: b.media,
});

/** A plan create request → the domain's input (the Commerce status spelled as `active`/`archived`). */
export const planCreateInput = (b: Schemas['SubscriptionPlanCreateRequest']): NewPlan => ({
  productId: b.productId,
  name: b.name,
  description: b.description,
  details: b.details,
  amount: b.amount,
  currency: b.currency,
  interval: lower(b.timeUnit),
  intervalCount: b.timeInterval,
  billingType: b.subscriptionBillingType === undefined ? undefined : BILLING_TYPES[b.subscriptionBillingType],
  active: b.status === undefined ? undefined : b.status === 'Active',
  archived: b.status === 'Archived',
  validFrom: date(b.validFrom),
  validTo: date(b.validTo),
});

/** A plan update request → the domain's input; the fixed fields pass through so the domain refuses them. */
export const planUpdateInput = (b: Schemas['SubscriptionPlanUpdateRequest']): PlanChanges => ({
  name: b.name,
  description: b.description,
  details: b.details,
  active: b.status === 'Active' ? true : b.status === 'Inactive' ? false : undefined,
  archive: b.status === 'Archived' ? true : undefined,
  restore: b.status === 'Active' || b.status === 'Inactive' ? true : undefined,
  validFrom: date(b.validFrom),
  validTo: b.validTo === undefined ? undefined : b.validTo === null ? null : new Date(b.validTo),
  amount: b.amount,
  currency: b.currency,
  interval: b.timeUnit,
  intervalCount: b.timeInterval,
});

/** The Commerce names of a plan's fixed fields, for the domain's `field_immutable` refusals. */
export const PLAN_FIELD_SPELLING = { interval: 'timeUnit', intervalCount: 'timeInterval' } as const;

export const inventoryStatus = (status: Schemas['SubscriptionInventoryItemStatus'] | undefined) =>
  status === undefined ? undefined : lower<InventoryItemStatus>(status);
