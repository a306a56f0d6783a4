// A checkout session as its events keep it: the row without its secrets (they never leave the
// sessions table), with the payment made through it. Checkout adds this kind of subject to the
// events module's list (declaration merging: events, below checkout, imports none of it).
import type { PaymentRow } from '../payments/payment.tables.js';
import type { CheckoutSessionRow } from './session.tables.js';

/** A checkout session as its events keep it: without its secrets. */
export type SessionSnapshot = Omit<CheckoutSessionRow, 'client_secret_hash' | 'client_secret' | 'notification_secret'>;

/** A session row without its secrets. */
export function sessionSnapshot(session: CheckoutSessionRow): SessionSnapshot {
  const { client_secret_hash: _hash, client_secret: _secret, notification_secret: _notification, ...snapshot } = session;
  return snapshot;
}

declare module '../events/subjects.js' {
  interface EventSubjects {
    checkout_session: { session: SessionSnapshot; payment: PaymentRow | null };
  }
}
