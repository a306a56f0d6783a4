// Events as the Checkout & Billing interface delivers them: the envelope, and `data.object`
// rendered from the domain records the event stored.
import type { components } from '../../../../generated/checkout.js';
import type { EventRecord, EventSubject } from '../../../domain/events/event.service.js';
import { decimalToAmount } from '../../../shared/money.js';
import { disputeView } from './dispute.view.js';
import { invoiceEventObject } from './invoice.view.js';
import { paymentEventObject } from './payment.view.js';
import { payoutView } from './payout.view.js';
import { sessionEventObject } from './session.view.js';
import { subscriptionEventObject } from './subscription.view.js';
import { transferEventView } from './transfer.view.js';

type Schemas = components['schemas'];

/** `data.object` of an event, from what it is about. */
export function eventObject(subject: EventSubject): Record<string, unknown> {
  switch (subject.kind) {
    case 'checkout_session':
      return sessionEventObject(subject.session, subject.payment);
    case 'payment': {
      const object = paymentEventObject(subject.payment, subject.card);
      if (!subject.refund) return object;
      const { currency, refunded_amount } = subject.payment;
      return { ...object, refundAmount: decimalToAmount(subject.refund.amount, currency), refundedAmount: decimalToAmount(refunded_amount, currency) };
    }
    case 'invoice':
      return invoiceEventObject(subject.invoice);
    case 'subscription':
      return subscriptionEventObject(subject.subscription, subject.change);
    case 'dispute':
      return disputeView(subject.dispute);
    case 'payout':
      return payoutView(subject.payout);
    case 'transfer':
      return transferEventView(subject.transfer);
    case 'test':
      return {
        object: 'test',
        id: subject.id,
        message: 'This is a test event sent from the Till API.',
        eventType: subject.eventType,
        isLive: subject.live,
        createdAt: subject.created_at.toISOString(),
      };
  }
}

/** The envelope of an event, as it is delivered and as the delivery log shows it. */
export function eventEnvelope(event: EventRecord): Schemas['WebhookEvent'] {
  const at = event.created_at.toISOString();
  // An event written before events stored records carries its payload as it was written.
  const object = event.subject.kind === 'payload' ? event.subject.payload : eventObject(event.subject);
  const envelope = {
    id: event.id,
    object: 'event' as const,
    type: event.type,
    apiVersion: event.api_version,
    created: at,
    createdAt: at,
    livemode: event.livemode,
    merchantId: event.merchant_id,
    data: { object },
  };
  return envelope as unknown as Schemas['WebhookEvent'];
}

/** The body of a webhook delivery (or an event-stream message): the event's envelope as JSON. Delivery keeps what it rendered (delivery.ts). */
export function webhookBody(event: EventRecord): string {
  return JSON.stringify(eventEnvelope(event));
}
