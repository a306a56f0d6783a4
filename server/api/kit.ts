// The handler kit: one way to read the caller and the list parameters, and to answer a record
// through its view, so that a handler reads like a table row: parse, call one service, answer.
import type { DeliverySettings } from '../domain/webhooks/delivery.js';
import type { SessionSettings } from '../domain/checkout/session-create.js';
import type { Page } from '../shared/pagination.js';
import { webhookBody } from './checkout/views/event.view.js';
import type { AppDeps } from './types.js';

/** 200 with a body. */
export const ok = <B>(body: B) => ({ status: 200 as const, body });
/** 201 with the created object. */
export const created = <B>(body: B) => ({ status: 201 as const, body });
/** 204, no body. */
export const noContent = () => ({ status: 204 as const });

/** The successful envelope of the subscription, plan and customer operations. */
export const envelope = <T>(data: T) => ({ success: true as const, errorCode: null, errorMessage: null, data });

/** A list's page parameters, with the operation's default page size when `limit` is left out. */
export function pageOf<C>(
  query: { limit?: number | undefined; startingAfter?: C | undefined },
  defaultLimit: number,
): { limit: number; startingAfter: C | undefined } {
  return { limit: query.limit ?? defaultLimit, startingAfter: query.startingAfter };
}

/** A page of records as the interface's list: each through its view. */
export function listOf<T, V>(page: Page<T>, view: (item: T) => V): { object: 'list'; data: V[]; hasMore: boolean } {
  return { object: 'list', data: page.data.map(view), hasMore: page.hasMore };
}

/** What webhook delivery needs of the server: its settings, and how an event is rendered (the Checkout envelope). */
export const deliverySettings = (deps: { config: Pick<AppDeps['config'], 'allowLoopbackWebhooks' | 'webhookTimeoutMs'> }): DeliverySettings => ({
  allowLoopbackWebhooks: deps.config.allowLoopbackWebhooks,
  webhookTimeoutMs: deps.config.webhookTimeoutMs,
  render: webhookBody,
});

/** What session creation needs of the server. */
export const sessionSettings = (deps: Pick<AppDeps, 'config'>): SessionSettings => ({
  publicBaseUrl: deps.config.publicBaseUrl,
  allowLoopbackWebhooks: deps.config.allowLoopbackWebhooks,
});
