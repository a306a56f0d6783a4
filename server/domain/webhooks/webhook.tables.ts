import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, Timestamp } from '../../db/columns.js';

type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/**
 * A webhook configuration: a sandbox URL (test-mode events) and a live URL (live-mode events and
 * every payout event), each with its signing secret. Shared by the merchant's test and live keys,
 * as the contract says, so it carries no `livemode`; its deliveries do.
 */
export interface WebhookConfigurationsTable {
  id: Generated<number>;
  merchant_id: number;
  sandbox_url: string | null;
  /** Kept readable: it signs every delivery (never returned after it is set). */
  sandbox_secret: string;
  live_url: string | null;
  live_secret: string;
  /** Event names, `family.*` wildcards or `*`. */
  subscribed_events: Json<string[]>;
  enabled: boolean;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type WebhookConfigurationRow = Selectable<WebhookConfigurationsTable>;

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead_lettered';

/**
 * One event to one target: a configuration's URL for the event's mode, or a checkout session's
 * `notificationUrl` (then `session_id` is set and `configuration_id` is null).
 */
export interface WebhookDeliveriesTable {
  /** `whd_…` */
  id: string;
  /** Order of creation, for newest-first pages. */
  seq: Generated<string>;
  merchant_id: number;
  livemode: boolean;
  configuration_id: number | null;
  session_id: string | null;
  /** A delivery to a payment link's `notificationUrl`. */
  payment_link_id: Generated<number | null>;
  event_id: string;
  event_type: string;
  /** The URL of the latest attempt (or the one the first attempt will use). */
  url: string;
  status: WebhookDeliveryStatus;
  /** Every attempt: automatic ones and re-sends. */
  attempt_count: Generated<number>;
  /** Automatic attempts only: they drive the retry schedule. */
  automatic_attempts: Generated<number>;
  /** When the next automatic attempt is due; null once succeeded or dead-lettered. */
  next_attempt_at: NullableTimestamp;
  /** A worker holds the delivery until then; a worker that died lets it go when it passes. */
  locked_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

/** One attempt of a delivery: the delivery log. */
export interface WebhookDeliveryAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempted_at: Timestamp;
  url: string;
  http_status: number | null;
  duration_ms: number;
  response_snippet: string | null;
  error: string | null;
  /** The headers of the request the attempt made (signature included); null when none was made. */
  request_headers: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
}
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    webhook_configurations: WebhookConfigurationsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  }
}
