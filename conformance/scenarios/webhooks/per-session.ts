// Per-session webhooks (creation rules 4 and 5): a session's `notificationUrl` receives its
// `checkout.session.*` events and the `payment.*` and `dispute.*` events of payments made through it,
// signed with its `notificationSecret`.
import type { Scenario } from '../../types.js';
import { PAY_CARD, SESSION, WATCH } from '../fixtures/operations.js';
import { pending } from '../fixtures/scenario.js';
import { CREATION_RULES } from '../fixtures/sections.js';

export const perSession: Scenario[] = [
  pending(
    'webhooks.per-session.session-events',
    "With `notificationUrl`, the session's `checkout.session.completed`, `.expired` and `.cancelled` events are sent there (needs a public HTTPS receiver)",
    CREATION_RULES,
    [SESSION, 'cancelCheckoutSession', ...PAY_CARD],
  ),
  pending(
    'webhooks.per-session.payment-events',
    'The `payment.*` events of payments made through the session (refunds and holds included) are sent to its `notificationUrl` (needs a public HTTPS receiver)',
    CREATION_RULES,
    [...PAY_CARD, 'refundCheckoutSession', 'capturePayment'],
  ),
  pending(
    'webhooks.per-session.dispute-events',
    'The `dispute.*` events of payments made through the session are sent to its `notificationUrl` (no way to raise a chargeback is known yet)',
    CREATION_RULES,
    [...PAY_CARD],
  ),
  pending('webhooks.per-session.no-endpoint-needed', 'Per-session delivery needs no configured endpoint', CREATION_RULES, [...PAY_CARD]),
  pending('webhooks.per-session.also-configured-endpoints', 'Per-session events also go to the configured endpoints', CREATION_RULES, [...WATCH, ...PAY_CARD]),
  pending(
    'webhooks.per-session.normal-envelope-retries-signature',
    'Per-session events use the normal envelope, retry schedule and `X-Webhook-Signature`',
    CREATION_RULES,
    [...PAY_CARD],
  ),
  pending('webhooks.per-session.sent-secret-signs', 'A sent `notificationSecret` signs every event of the session', CREATION_RULES, [...PAY_CARD]),
  pending(
    'webhooks.per-session.generated-secret-signs',
    "Without a sent secret, the `notificationSecret` returned at creation signs the session's events",
    CREATION_RULES,
    [...PAY_CARD],
  ),
];
