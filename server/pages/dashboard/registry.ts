// Every section of the dashboard, in the navigation's order. A new section is one file under
// sections/ and one line here (docs/dashboard.md, "Adding a section").
import type { DashboardSection } from './section.js';
import { productsSection, plansSection } from './sections/catalog.js';
import { checkoutSessionsSection } from './sections/checkout-sessions.js';
import { customersSection } from './sections/customers.js';
import { disputesSection } from './sections/disputes.js';
import { homeSection } from './sections/home.js';
import { invoicesSection } from './sections/invoices.js';
import { paymentLinksSection } from './sections/payment-links.js';
import { paymentsSection } from './sections/payments.js';
import { payoutsSection, transfersSection } from './sections/payouts.js';
import { subscriptionsSection } from './sections/subscriptions.js';
import { webhooksSection } from './sections/webhooks.js';
import { eventsSection } from './sections/events.js';
import { testClockSection } from './sections/test-clock.js';
import { requestLogSection } from './sections/request-log.js';
import { auditLogSection } from './sections/audit-log.js';
import { apiKeysSection } from './sections/api-keys.js';

export const SECTIONS: readonly DashboardSection[] = [
  homeSection,
  paymentsSection,
  checkoutSessionsSection,
  customersSection,
  subscriptionsSection,
  invoicesSection,
  paymentLinksSection,
  productsSection,
  plansSection,
  payoutsSection,
  transfersSection,
  disputesSection,
  webhooksSection,
  eventsSection,
  testClockSection,
  requestLogSection,
  auditLogSection,
  apiKeysSection,
];
