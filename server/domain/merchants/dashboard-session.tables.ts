import type { Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/**
 * A browser signed in to the merchant dashboard. Only the SHA-256 of the session's token (the
 * cookie's value) is kept, never the token nor the key it was opened with: the key's row is
 * referenced, one per mode, so revoking the key ends the session's use of that mode.
 */
export interface DashboardSessionsTable {
  token_hash: string;
  merchant_id: number;
  test_key_id: number | null;
  live_key_id: number | null;
  /** The mode the dashboard shows now (the toggle). */
  livemode: boolean;
  created_at: Timestamp;
  expires_at: Timestamp;
}
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;

// The table above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    dashboard_sessions: DashboardSessionsTable;
  }
}
