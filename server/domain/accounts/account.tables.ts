import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

export type WalletAccountStatus = 'Active' | 'Inactive' | 'Frozen' | 'Closed';

/** A merchant's wallet account in one mode and currency: its money is the ledger's `pending` and `available` balances there. */
export interface WalletAccountsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  currency: string;
  /** `TL` + 11 digits, unique across Till: how another merchant names it as a transfer destination. */
  account_number: string;
  name: string;
  description: string | null;
  status: Generated<WalletAccountStatus>;
  created_at: Timestamp;
}
export type WalletAccountRow = Selectable<WalletAccountsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    wallet_accounts: WalletAccountsTable;
  }
}
