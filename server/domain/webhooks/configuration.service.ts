import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type AuditTrail, type FieldChanges, REDACTED, changedFields, createdFields, deletedFields } from '../../db/audit-trail.js';
import type { Db } from '../../db/database.js';
import { retryingDeadlocks } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { WebhookConfigurationRow } from './webhook.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import { publicHttpsProblem } from '../../shared/public-url.js';
import type { MerchantRef } from '../../shared/tenant.js';
import { deleteConfigurationRow, findConfiguration, findConfigurations, insertConfiguration, updateConfigurationRow } from './configuration.repository.js';
import { subscriptionProblem } from './event-types.js';

/** A new configuration: at least one URL; secrets left out are generated. */
export interface NewWebhookConfiguration {
  sandboxUrl?: string | undefined;
  liveUrl?: string | undefined;
  sandboxSecret?: string | undefined;
  liveSecret?: string | undefined;
  subscribedEvents?: string[] | undefined;
  enabled?: boolean | undefined;
  description?: string | null | undefined;
}

/** Changes to a configuration: any subset; a URL set to null is removed; a rotate generates a secret. */
export interface WebhookConfigurationChanges {
  sandboxUrl?: string | null | undefined;
  liveUrl?: string | null | undefined;
  sandboxSecret?: string | undefined;
  liveSecret?: string | undefined;
  rotateSandboxSecret?: boolean | undefined;
  rotateLiveSecret?: boolean | undefined;
  subscribedEvents?: string[] | undefined;
  enabled?: boolean | undefined;
  description?: string | null | undefined;
}

/** A merchant (configurations are shared by its test and live keys). */
export type WebhookOwner = MerchantRef;

export interface UrlPolicy {
  /** `TILL_ALLOW_LOOPBACK_WEBHOOKS`: sandbox URLs may be loopback (never live ones). */
  allowLoopback: boolean;
}

/** A generated signing secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks form). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

async function checkUrl(param: 'sandboxUrl' | 'liveUrl', url: string, policy: UrlPolicy): Promise<void> {
  const problem = await publicHttpsProblem(url, { allowLoopback: param === 'sandboxUrl' && policy.allowLoopback });
  if (problem) throw new AppError('parameter_invalid', { param, message: `${param} ${problem}.` });
}

function checkSubscriptions(items: readonly string[]): void {
  for (const [i, item] of items.entries()) {
    const problem = subscriptionProblem(item);
    if (problem)
      throw new AppError('parameter_invalid', {
        param: `subscribedEvents[${i}]`,
        message: `subscribedEvents: ${problem}. Use an event name, a family such as payment.*, or *.`,
      });
  }
}

/** The merchant's configuration; 404 for anyone else's, exactly like a missing one. */
export async function getConfiguration(db: Db, owner: WebhookOwner, id: number): Promise<WebhookConfigurationRow> {
  const row = await findConfiguration(db, owner, id);
  if (!row) throw new AppError('resource_not_found', { param: 'id', message: `No such webhook configuration: ${id}.` });
  return row;
}

/** A configuration's fields as the audit log shows them: its signing secrets never, only that they are set. */
function configurationFields(row: WebhookConfigurationRow) {
  return {
    sandboxUrl: row.sandbox_url,
    liveUrl: row.live_url,
    subscribedEvents: row.subscribed_events,
    enabled: row.enabled,
    description: row.description,
    sandboxSecret: REDACTED,
    liveSecret: REDACTED,
  };
}

/** What changed between two versions of a configuration; a changed secret shows as `[redacted]` on both sides. */
function configurationChanges(before: WebhookConfigurationRow, after: WebhookConfigurationRow): FieldChanges {
  const changes = changedFields(configurationFields(before), configurationFields(after));
  if (before.sandbox_secret !== after.sandbox_secret) changes.sandboxSecret = { before: REDACTED, after: REDACTED };
  if (before.live_secret !== after.live_secret) changes.liveSecret = { before: REDACTED, after: REDACTED };
  return changes;
}

/** Creates a configuration; a secret left out is generated. Both secrets are returned, once. Recorded on `trail` when given. */
export async function createConfiguration(
  db: Kysely<Database>,
  clock: Clock,
  policy: UrlPolicy,
  owner: WebhookOwner,
  input: NewWebhookConfiguration,
  trail?: AuditTrail,
) {
  if (input.sandboxUrl === undefined && input.liveUrl === undefined) {
    throw new AppError('parameter_missing', {
      param: 'sandboxUrl',
      message: 'Send sandboxUrl, liveUrl or both: where test-mode and live-mode events are POSTed.',
    });
  }
  if (input.sandboxUrl !== undefined) await checkUrl('sandboxUrl', input.sandboxUrl, policy);
  if (input.liveUrl !== undefined) await checkUrl('liveUrl', input.liveUrl, policy);
  const subscribedEvents = input.subscribedEvents ?? ['*'];
  checkSubscriptions(subscribedEvents);
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    const row = await insertConfiguration(trx, {
      merchant_id: owner.merchantId,
      sandbox_url: input.sandboxUrl ?? null,
      sandbox_secret: input.sandboxSecret ?? newSigningSecret(),
      live_url: input.liveUrl ?? null,
      live_secret: input.liveSecret ?? newSigningSecret(),
      subscribed_events: JSON.stringify(subscribedEvents),
      enabled: input.enabled ?? true,
      description: input.description ?? null,
      created_at: now,
      updated_at: now,
    });
    await trail?.(trx, { action: 'webhook_configuration.created', targetId: row.id, changes: createdFields(configurationFields(row)) });
    return row;
  });
}

/** Newest first, keyset-paged on id. */
export async function listConfigurations(
  db: Db,
  owner: WebhookOwner,
  page: { limit: number; startingAfter?: number | undefined },
): Promise<Page<WebhookConfigurationRow>> {
  return toPage(await findConfigurations(db, owner, page), page.limit);
}

/**
 * Changes any subset of the fields. A generated (rotated) secret is returned once; a new secret
 * signs every delivery from then on, retries and re-sends included (they read it at send time).
 */
export async function updateConfiguration(
  db: Kysely<Database>,
  clock: Clock,
  policy: UrlPolicy,
  owner: WebhookOwner,
  id: number,
  input: WebhookConfigurationChanges,
  trail?: AuditTrail,
) {
  await getConfiguration(db, owner, id);
  if (input.sandboxSecret !== undefined && input.rotateSandboxSecret)
    throw new AppError('validation_error', { param: 'rotateSandboxSecret', message: 'Send either sandboxSecret or rotateSandboxSecret, not both.' });
  if (input.liveSecret !== undefined && input.rotateLiveSecret)
    throw new AppError('validation_error', { param: 'rotateLiveSecret', message: 'Send either liveSecret or rotateLiveSecret, not both.' });
  if (typeof input.sandboxUrl === 'string') await checkUrl('sandboxUrl', input.sandboxUrl, policy);
  if (typeof input.liveUrl === 'string') await checkUrl('liveUrl', input.liveUrl, policy);
  if (input.subscribedEvents !== undefined) checkSubscriptions(input.subscribedEvents);
  const generated: { sandboxSecret?: string; liveSecret?: string } = {};
  if (input.rotateSandboxSecret) generated.sandboxSecret = newSigningSecret();
  if (input.rotateLiveSecret) generated.liveSecret = newSigningSecret();
  return db.transaction().execute(async (trx) => {
    const current = await findConfiguration(trx, owner, id, { lock: true });
    if (!current) throw new AppError('resource_not_found', { param: 'id', message: `No such webhook configuration: ${id}.` });
    const sandboxUrl = input.sandboxUrl === undefined ? current.sandbox_url : input.sandboxUrl;
    const liveUrl = input.liveUrl === undefined ? current.live_url : input.liveUrl;
    if (sandboxUrl === null && liveUrl === null) {
      throw new AppError('parameter_invalid', {
        param: input.sandboxUrl === null ? 'sandboxUrl' : 'liveUrl',
        message: 'A configuration needs at least one URL; delete it instead of removing both.',
      });
    }
    const row = await updateConfigurationRow(trx, owner, id, {
      sandbox_url: sandboxUrl,
      live_url: liveUrl,
      sandbox_secret: generated.sandboxSecret ?? input.sandboxSecret ?? current.sandbox_secret,
      live_secret: generated.liveSecret ?? input.liveSecret ?? current.live_secret,
      subscribed_events: JSON.stringify(input.subscribedEvents ?? current.subscribed_events),
      enabled: input.enabled ?? current.enabled,
      description: input.description === undefined ? current.description : input.description,
      updated_at: clock.now(),
    });
    await trail?.(trx, { action: 'webhook_configuration.updated', targetId: id, changes: configurationChanges(current, row) });
    return { row, generated };
  });
}

/**
 * Deletes a configuration with its deliveries (pending retries included) and their log. Recorded
 * on `trail` when given. The cascade locks the deliveries in its order while the attempt pipeline
 * may be recording some of them in another: the transaction PostgreSQL ends to break such a
 * deadlock is run again.
 */
export async function deleteConfiguration(db: Kysely<Database>, owner: WebhookOwner, id: number, trail?: AuditTrail): Promise<void> {
  await retryingDeadlocks(() =>
    db.transaction().execute(async (trx) => {
      const current = await findConfiguration(trx, owner, id, { lock: true });
      if (!current || !(await deleteConfigurationRow(trx, owner, id)))
        throw new AppError('resource_not_found', { param: 'id', message: `No such webhook configuration: ${id}.` });
      await trail?.(trx, { action: 'webhook_configuration.deleted', targetId: id, changes: deletedFields(configurationFields(current)) });
    }),
  );
}
