import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Json, Timestamp } from '../../db/columns.js';

/** A way a merchant accepts payment, offered on its checkout pages. */
export interface PaymentOption {
  id: number;
  code: string;
  name: string;
  /** PaymentMethod of the Commerce interface (`CreditCard`, `GatewayWallet`, ...). */
  method: string;
  /** Whether this option can hold a card (authorize now, capture later). */
  canHold: boolean;
  /** Days an authorization stays open; 7 when null. */
  holdDays: number | null;
  enabled: boolean;
  /** The currencies it takes (ISO 4217, upper case); every currency when absent. */
  currencies?: string[];
}

export type RatePlan = 'standard' | 'enterprise';

export interface MerchantsTable {
  id: Generated<number>;
  name: string;
  slug: string;
  email: string | null;
  logo_url: string | null;
  rate_plan: RatePlan;
  /** 'Message Checkout Customers': off unless turned on. */
  message_checkout_customers: Generated<boolean>;
  /** 'Send Checkout Receipts': on unless turned off. */
  send_checkout_receipts: Generated<boolean>;
  payment_options: Json<PaymentOption[]>;
  /** Button colour of its hosted pages, `#rrggbb`; Till's own when null. */
  brand_color: Generated<string | null>;
  created_at: Timestamp;
  /** A sandbox merchant (`POST /v1/test-helpers/merchants`): the merchant that made it; null for an ordinary one. */
  parent_merchant_id: number | null;
  /** A sandbox merchant's keys stop working then (real time); null for an ordinary merchant. */
  sandbox_expires_at: Timestamp | null;
  website: Generated<string | null>;
  /** Country of registration, ISO 3166-1 alpha-2. */
  country: Generated<string>;
  /** ISO 4217, upper case. */
  default_currency: Generated<string>;
}
export type Merchant = Selectable<MerchantsTable>;
export type NewMerchant = Insertable<MerchantsTable>;
export type MerchantUpdate = Updateable<MerchantsTable>;

/** `restricted`: a server key that carries a role (`rk_…`). */
export type ApiKeyKind = 'secret' | 'publishable' | 'restricted';

export interface ApiKeysTable {
  id: Generated<number>;
  merchant_id: number;
  kind: ApiKeyKind;
  livemode: boolean;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters (`sk_test_Ab12`), to tell keys apart in a dashboard. */
  key_prefix: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  /** The key's text, kept only for the one publishable key per merchant and mode that Till's hosted pages use (publishable keys are public). */
  page_key: Generated<string | null>;
  /** The role a restricted key carries; null for the other kinds. */
  role_id: Generated<number | null>;
  /** What a restricted key is for, as its maker said. */
  description: Generated<string | null>;
}
export type ApiKey = Selectable<ApiKeysTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    merchants: MerchantsTable;
    api_keys: ApiKeysTable;
  }
}
