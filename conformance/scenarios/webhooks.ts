// Behaviour scenarios of the webhook event system (checkout-billing-api.md › Events, and the
// per-session rules 4 and 5 of checkout session creation), one file per rule group in `webhooks/`.
// Events are observed through a webhook configuration's delivery log (`listWebhookDeliveries`, which
// carries each delivered event; fixtures/deliveries.ts, fixtures/tied.ts); what only the receiver sees
// (the signature and the headers) goes to an HTTPS receiver on this machine (fixtures/receiver.ts), which
// a target reaches when it allows loopback URLs.
import type { Scenario } from '../types.js';
import { delivery, testEvent } from './webhooks/delivery.js';
import { sessionObjects, subscriptionObjects } from './webhooks/envelope-objects.js';
import { perSession } from './webhooks/per-session.js';
import { envelope } from './webhooks/envelope.js';
import { selection } from './webhooks/selection.js';
import { signature } from './webhooks/signature.js';
import { tiedInvoices } from './webhooks/tied-invoices.js';
import { tiedPayments } from './webhooks/tied-payments.js';
import { tiedSessions } from './webhooks/tied-sessions.js';
import { tiedSubscriptions } from './webhooks/tied-subscriptions.js';

export const webhookScenarios: Scenario[] = [
  ...selection,
  ...envelope,
  ...sessionObjects,
  ...subscriptionObjects,
  ...signature,
  ...delivery,
  ...testEvent,
  ...perSession,
  ...tiedSessions,
  ...tiedPayments,
  ...tiedInvoices,
  ...tiedSubscriptions,
];
