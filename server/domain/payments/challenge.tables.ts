import type { Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/**
 * `open` until the payer answers it: `succeeded` (authenticated, the payment went through),
 * `failed` (authentication failed), `replaced` (a later confirm started another payment) or
 * `expired` (the session's time ran out first).
 */
export type ThreeDsChallengeStatus = 'open' | 'succeeded' | 'failed' | 'replaced' | 'expired';

/** A 3-D Secure challenge of the sandbox processor, for one `requires_action` card payment. */
export interface ThreeDsChallengesTable {
  /** `3ds_…`, 40 random characters: the credential of the challenge page. */
  id: string;
  merchant_id: number;
  livemode: boolean;
  session_id: string;
  payment_id: number;
  /** Carried by the page's form: a completion must come from the page that was shown (no blind cross-site POST). */
  form_token: string;
  /** Where the payer's browser goes once the challenge is answered; null shows a plain result page. */
  return_url: string | null;
  status: ThreeDsChallengeStatus;
  /** The session's expiry: after it the challenge can no longer be answered. */
  expires_at: Timestamp;
  answered_at: Timestamp | null;
  created_at: Timestamp;
}
export type ThreeDsChallengeRow = Selectable<ThreeDsChallengesTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    three_ds_challenges: ThreeDsChallengesTable;
  }
}
