// What the webhooks section's pages share: the scopes, the ids of the address, the `done` texts.
import type { Request } from 'express';
import type { WebhookDeliveryStatus } from '../../../domain/webhooks/webhook.tables.js';
import { AppError } from '../../../shared/errors.js';

export const WEBHOOK_READ = ['webhookconfiguration.read'];
export const WEBHOOK_UPDATE = ['webhookconfiguration.update'];
export const STATUSES: WebhookDeliveryStatus[] = ['pending', 'succeeded', 'failed', 'dead_lettered'];
export const DELIVERY_ID = /^whd_[A-Za-z0-9_-]{1,64}$/;

const DONE: Record<string, string> = {
  enabled: 'The endpoint is enabled.',
  disabled: 'The endpoint is disabled: no event is sent to it until it is enabled again.',
  tested: 'A test event was sent; its delivery is at the top of the log.',
  resent: 'The delivery was re-sent.',
};
export const doneText = (req: Request): string | undefined => DONE[String(req.query.done)];

export function endpointId(req: Request): number {
  const text = String(req.params.id);
  const id = /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : NaN;
  if (!(id <= 2147483647)) throw new AppError('resource_not_found', { message: 'There is no such webhook endpoint.' });
  return id;
}
