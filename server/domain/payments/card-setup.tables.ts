import type { Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/** `open` until the customer answers the issuer's page: `succeeded`, `failed`, or `expired` with its portal session. */
export type CardSetupStatus = 'open' | 'succeeded' | 'failed' | 'expired';

/** A card added in the portal that waits for the customer's 3-D Secure answer before it is kept on file. */
export interface CardSetupsTable {
  /** `3ds_…`, 40 random characters, like a payment's challenge. */
  id: string;
  merchant_id: number;
  livemode: boolean;
  portal_session_id: string;
  customer_id: number;
  payment_method_id: string;
  /** Carried by the issuer page's form (no blind cross-site POST). */
  form_token: string;
  status: CardSetupStatus;
  expires_at: Timestamp;
  answered_at: Timestamp | null;
  created_at: Timestamp;
}
export type CardSetupRow = Selectable<CardSetupsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    card_setups: CardSetupsTable;
  }
}
