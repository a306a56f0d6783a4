import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/** How far a merchant has advanced its test-mode clock (bigint, read as text). */
export interface SandboxClocksTable {
  merchant_id: number;
  offset_seconds: ColumnType<string, string | number | undefined, string | number>;
  /** Set while an advance runs; a second advance is refused until it is cleared or passes. */
  advancing_until: Timestamp | null;
  updated_at: Timestamp;
}

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    sandbox_clocks: SandboxClocksTable;
  }
}
