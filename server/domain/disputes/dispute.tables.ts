import type { Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from '../../db/columns.js';

/** Where a dispute stands: `open` and `under_review` can change; `won`, `lost` and `accepted` are final. */
export type DisputeStatus = 'open' | 'under_review' | 'won' | 'lost' | 'accepted';

/** A chargeback on a card payment (one per payment at most). */
export interface DisputesTable {
  /** `dp_…` */
  id: string;
  /** Insertion order, for newest-first pages. */
  seq: Generated<string>;
  merchant_id: number;
  livemode: boolean;
  payment_id: number;
  /** The invoice the payment paid, if any. */
  invoice_id: number | null;
  amount: Numeric;
  currency: string;
  /** The dispute fee taken from the balance (0 unless closed lost or accepted). */
  fee: Generated<string>;
  status: DisputeStatus;
  /** The status before the last change (null until the first). */
  previous_status: DisputeStatus | null;
  reason: string;
  evidence_due_at: Timestamp | null;
  /** Set when closed: whether the disputed amount went back on the invoice as owed. */
  invoice_reopened: boolean | null;
  closed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type DisputeRow = Selectable<DisputesTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    disputes: DisputesTable;
  }
}

// What this module's events keep (the events module's list of subjects, by declaration merging).
declare module '../events/subjects.js' {
  interface EventSubjects {
    dispute: { dispute: DisputeRow };
  }
}
