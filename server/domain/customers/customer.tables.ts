import type { Generated, Selectable } from 'kysely';
import type { Json, Timestamp } from '../../db/columns.js';

/** Customers (clients) of a merchant. Shared by test and live mode; their cards on file are per mode (payment_methods). */
export interface CustomersTable {
  id: Generated<number>;
  merchant_id: number;
  email: string | null;
  name: string | null;
  phone: string | null;
  external_id: string | null;
  metadata: Json<Record<string, string>>;
  created_at: Timestamp;
}
export type Customer = Selectable<CustomersTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    customers: CustomersTable;
  }
}
