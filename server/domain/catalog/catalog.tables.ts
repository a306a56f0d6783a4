import type { Generated, Selectable } from 'kysely';
import type { Json, Numeric, Timestamp } from '../../db/columns.js';

/**
 * Products and plans back both interfaces: `/v1/products` and `/v1/plans` (Checkout & Billing)
 * and `/v1/SubscriptionProduct` and `/v1/SubscriptionPlan` (Commerce) are views of these rows.
 * They are shared by test and live mode.
 */
export interface ProductsTable {
  id: Generated<number>;
  merchant_id: number;
  name: string;
  description: string | null;
  /** service | digital | physical (Commerce: Service, Digital, Physical). */
  type: 'service' | 'digital' | 'physical';
  media: Json<{ mediaUrl: string; isPrimary: boolean }[]>;
  created_at: Timestamp;
}
export type Product = Selectable<ProductsTable>;

import type { PlanInterval } from '../../shared/time.js';

export type { PlanInterval };

/** How a plan bills: every period in advance, once, or by usage at each period's end (metered). */
export type PlanBillingType = 'recurring' | 'one_time' | 'usage';

export interface PlansTable {
  id: Generated<number>;
  merchant_id: number;
  product_id: number;
  name: string;
  description: string | null;
  /** Commerce `details`. */
  details: string | null;
  amount: Numeric;
  currency: string;
  interval: PlanInterval;
  interval_count: number;
  /** recurring | one_time | usage (Commerce subscriptionBillingType). */
  billing_type: PlanBillingType;
  /** false makes a draft (Commerce status Inactive). */
  active: boolean;
  /** available | discontinued (Commerce: Active/Inactive, Archived). */
  status: 'available' | 'discontinued';
  valid_from: Timestamp | null;
  valid_to: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type Plan = Selectable<PlansTable>;

/** What a serial-numbered unit is doing (Commerce: Available, Reserved, Rented, Discontinued). */
export type InventoryItemStatus = 'available' | 'reserved' | 'rented' | 'discontinued';

/** One serial-numbered unit of a product (Commerce `/v1/SubscriptionInventoryItem`), shared by both modes. */
export interface SubscriptionInventoryItemsTable {
  id: Generated<number>;
  merchant_id: number;
  product_id: number;
  /** Unique among the product's items, case-insensitively. */
  serial_number: string;
  status: InventoryItemStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type InventoryItem = Selectable<SubscriptionInventoryItemsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    products: ProductsTable;
    plans: PlansTable;
    subscription_inventory_items: SubscriptionInventoryItemsTable;
  }
}
