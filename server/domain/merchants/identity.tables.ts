import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/** A place of business of a merchant; shared by both modes. At most one is primary. */
export interface MerchantLocationsTable {
  id: Generated<number>;
  merchant_id: number;
  name: string;
  /** Null, as `city`, on the primary location Till makes for a merchant created without an address. */
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string;
  phone: string | null;
  is_primary: boolean;
  created_at: Timestamp;
}
export type MerchantLocation = Selectable<MerchantLocationsTable>;

/** A person's membership of one merchant. Every key of the merchant acts for its owner. */
export interface UsersTable {
  id: Generated<number>;
  merchant_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  is_owner: boolean;
  created_at: Timestamp;
}
export type User = Selectable<UsersTable>;

/** A named set of scopes of a merchant, shared by both modes; restricted keys carry one. Never changed once made. */
export interface RolesTable {
  id: Generated<number>;
  merchant_id: number;
  name: string;
  description: string | null;
  scopes: string[];
  created_at: Timestamp;
}
export type Role = Selectable<RolesTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    merchant_locations: MerchantLocationsTable;
    users: UsersTable;
    roles: RolesTable;
  }
}
