/** The merchant and mode a call acts for. Every merchant-owned row belongs to one tenant. */
export interface Tenant {
  merchantId: number;
  livemode: boolean;
}

/** A merchant, for the rows both of its modes share (customers, products, plans, webhook configurations). */
export interface MerchantRef {
  merchantId: number;
}

/** The tenant a stored row belongs to. */
export const tenantOf = (row: { merchant_id: number; livemode: boolean }): Tenant => ({ merchantId: row.merchant_id, livemode: row.livemode });
