// Behaviour scenarios of checkout-billing-api.md, one file per resource: products, plans,
// customers, lists, checkout sessions (creation and its rules, retrieval, cards on file, states,
// withdraw-qr), card holds, refunds, subscriptions, invoices and portal sessions. Webhook rules are
// in ../webhooks.ts; auth, errors, limits, idempotency and versioning in ../platform/.
import type { Scenario } from '../../types.js';
import { customers } from './customers.js';
import { disputes } from './disputes.js';
import { holdErrors } from './hold-errors.js';
import { holds } from './holds.js';
import { invoicesAndPortal } from './invoices-and-portal.js';
import { lists } from './lists.js';
import { meteredUsage } from './metered-usage.js';
import { planChanges } from './plan-changes.js';
import { planListsAndStates } from './plan-lists-and-states.js';
import { plans } from './plans.js';
import { products } from './products.js';
import { refundErrors } from './refund-errors.js';
import { refundRules } from './refund-rules.js';
import { refundStates } from './refund-states.js';
import { refunds } from './refunds.js';
import { renewals } from './renewal.js';
import { savedCardsAndSrc } from './saved-cards.js';
import { sessionCreation } from './session-creation.js';
import { sessionMessageScenarios } from './session-messages.js';
import { invoicePayment } from './session-invoice.js';
import { invoicePayable } from './session-invoice-payable.js';
import { sessionCancelStates } from './session-cancel-states.js';
import { sessionRefundState } from './session-refund-state.js';
import { sessionRetrieval } from './session-retrieval.js';
import { sessionRules } from './session-rules.js';
import { sessionStates } from './session-states.js';
import { subscriptionBillingStates } from './subscription-billing-states.js';
import { subscriptionSessions } from './subscription-sessions.js';
import { subscriptionStates } from './subscription-states.js';
import { subscriptions } from './subscriptions.js';
import { withdrawQr } from './withdraw-qr.js';

export const checkoutScenarios: Scenario[] = [
  ...products,
  ...plans,
  ...planListsAndStates,
  ...customers,
  ...lists,
  ...sessionCreation,
  ...sessionMessageScenarios,
  ...sessionRules,
  ...invoicePayment,
  ...invoicePayable,
  ...subscriptionSessions,
  ...sessionRetrieval,
  ...sessionRefundState,
  ...savedCardsAndSrc,
  ...sessionStates,
  ...sessionCancelStates,
  ...withdrawQr,
  ...holds,
  ...holdErrors,
  ...refunds,
  ...refundRules,
  ...refundErrors,
  ...refundStates,
  ...disputes,
  ...subscriptions,
  ...subscriptionStates,
  ...subscriptionBillingStates,
  ...renewals,
  ...meteredUsage,
  ...planChanges,
  ...invoicesAndPortal,
];
