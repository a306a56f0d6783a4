import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

export type FundingSourceStatus = 'Active' | 'PendingVerification' | 'Inactive' | 'Expired' | 'Blocked';

/** A card registered by the merchant (the card itself is a `payment_methods` row: never its number or CVC). */
export interface FundingSourcesTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  payment_method_id: string;
  name: string;
  description: string | null;
  payment_option_id: number;
  status: FundingSourceStatus;
  is_verified: boolean;
  /** HMAC of the verification code while one is out; never the code. */
  verification_code_hash: string | null;
  verification_expires_at: Timestamp | null;
  failed_attempts: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type FundingSourceRow = Selectable<FundingSourcesTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    funding_sources: FundingSourcesTable;
  }
}
