import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/**
 * Usage recorded against a metered subscription item (an item on a `Usage` plan). A period's usage
 * is the sum of the records whose `recorded_at` falls in it; it is billed at the period's end.
 */
export interface UsageRecordsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  subscription_id: number;
  subscription_item_id: number;
  /** Units used (whole units, at least 1). */
  quantity: number;
  /** The caller's own id for the record: a second record with it on the same item is the first one. */
  usage_id: string | null;
  /** When the usage happened (the caller's timestamp, or when it was recorded): its period. */
  recorded_at: Timestamp;
  /** The invoice that billed it; null until its period's end. */
  invoice_id: number | null;
  created_at: Timestamp;
}
export type UsageRecordRow = Selectable<UsageRecordsTable>;

// The table above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    usage_records: UsageRecordsTable;
  }
}
