import type { components } from '../../../../generated/checkout.js';
import type { WebhookConfigurationRow } from '../../../domain/webhooks/webhook.tables.js';
import type { DeliveryEntry } from '../../../domain/webhooks/delivery-log.js';
import { eventEnvelope } from './event.view.js';

type Schemas = components['schemas'];

/** A configuration as the API shows it: never its secrets. */
export function configurationView(row: WebhookConfigurationRow): Schemas['WebhookConfiguration'] {
  return {
    id: row.id,
    object: 'webhook_configuration',
    sandboxUrl: row.sandbox_url,
    liveUrl: row.live_url,
    subscribedEvents: row.subscribed_events,
    enabled: row.enabled,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** A delivery with its attempts (oldest first, the latest 100) and the event it carries. */
export function deliveryView({ delivery: row, attempts, event }: DeliveryEntry): Schemas['WebhookDelivery'] {
  return {
    id: row.id,
    object: 'webhook_delivery',
    configurationId: row.configuration_id!,
    eventId: row.event_id,
    eventType: row.event_type as Schemas['EventType'],
    url: row.url,
    livemode: row.livemode,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.status === 'pending' || row.status === 'failed' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    attempts: attempts.slice(-100).map((a) => ({
      attemptedAt: a.attempted_at.toISOString(),
      httpStatus: a.http_status,
      durationMs: Math.min(a.duration_ms, 30_000),
      responseSnippet: a.response_snippet,
      error: a.error,
      requestHeaders: a.request_headers ?? null,
    })),
    createdAt: row.created_at.toISOString(),
    event: eventEnvelope(event),
  };
}
