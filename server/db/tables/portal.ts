import type { Selectable } from 'kysely';
import type { Timestamp } from '../columns.js';

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
