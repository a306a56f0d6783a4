import type { Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/** A session of the hosted customer portal: one customer, one mode, one hour. */
export interface PortalSessionsTable {
  /** `ps_test_…`/`ps_live_…`: an identifier, not a credential. */
  id: string;
  merchant_id: number;
  livemode: boolean;
  customer_id: number;
  /** SHA-256 hex of the secret token in the portal's URL; the token itself is never stored. */
  token_hash: string;
  /** Carried by the portal's forms: a change must come from a page the portal showed. */
  form_token: string;
  return_url: string | null;
  expires_at: Timestamp;
  created_at: Timestamp;
}
export type PortalSessionRow = Selectable<PortalSessionsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    portal_sessions: PortalSessionsTable;
  }
}
