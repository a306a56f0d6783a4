import type {
  components as CheckoutComponents,
  operations as CheckoutOperations,
  paths as CheckoutPaths,
  webhooks as CheckoutWebhooks,
} from '../../generated/checkout.js';
import type { components as CommerceComponents, operations as CommerceOperations, paths as CommercePaths } from '../../generated/commerce.js';

export type { CheckoutComponents, CheckoutOperations, CheckoutPaths, CheckoutWebhooks };
export type { CommerceComponents, CommerceOperations, CommercePaths };

/** Every schema of the Checkout & Billing interface, by name: `CheckoutSchemas['CheckoutSession']`. */
export type CheckoutSchemas = CheckoutComponents['schemas'];
/** Every schema of the Commerce interface, by name: `CommerceSchemas['Invoice']`. */
export type CommerceSchemas = CommerceComponents['schemas'];

/** Any webhook event Till sends; narrow it on `type`. */
export type WebhookEvent = CheckoutSchemas['WebhookEvent'];
/** The name of a webhook event type, e.g. `payment.succeeded`. */
export type WebhookEventType = WebhookEvent['type'];
/** The event of one type: `WebhookEventOf<'payment.refunded'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
