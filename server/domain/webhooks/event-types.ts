import { EVENT_TYPES, type EventType } from '../../shared/vocabulary.generated.js';

// Which events go where. The event types themselves are the contract's (generated from its
// webhooks section by `npm run generate`).

export { EVENT_TYPES, type EventType };

/** Why a `subscribedEvents` item is refused, or undefined: an event name, a `family.*` of existing events, or `*`. */
export function subscriptionProblem(item: string): string | undefined {
  if (item === '*') return undefined;
  if (item.endsWith('.*')) {
    const family = item.slice(0, -1);
    return EVENT_TYPES.some((t) => t.startsWith(family)) ? undefined : `${item} names no family of events`;
  }
  return (EVENT_TYPES as readonly string[]).includes(item) ? undefined : `${item} is not an event type`;
}

/** Whether an event type is selected by a subscription list (names, `family.*`, `*`). */
export function subscribed(subscribedEvents: readonly string[], type: string): boolean {
  if (type === 'webhook.test') return true;
  return subscribedEvents.some((item) => item === '*' || item === type || (item.endsWith('.*') && type.startsWith(item.slice(0, -1))));
}

/** Events of a session sent to its `notificationUrl` (creation rule 4). */
export function goesToSessionUrl(type: string): boolean {
  return (
    type === 'checkout.session.completed' ||
    type === 'checkout.session.expired' ||
    type === 'checkout.session.cancelled' ||
    type.startsWith('payment.') ||
    type.startsWith('dispute.')
  );
}

/** Payout events are always live (live URL, live secret). */
export const alwaysLive = (type: string): boolean => type.startsWith('payout.');
