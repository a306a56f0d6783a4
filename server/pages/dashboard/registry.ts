// Every section of the dashboard, in the navigation's order. A new section is one file under
// sections/ and one line here (docs/dashboard.md, "Adding a section").
import type { DashboardSection } from './section.js';
import { homeSection } from './sections/home.js';
import { paymentsSection } from './sections/payments.js';
import { checkoutSessionsSection } from './sections/checkout-sessions.js';
import { customersSection } from './sections/customers.js';

export const SECTIONS: readonly DashboardSection[] = [homeSection, paymentsSection, checkoutSessionsSection, customersSection];
