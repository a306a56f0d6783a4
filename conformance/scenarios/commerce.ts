// Behaviour scenarios of commerce-api.md, one file per area in `commerce/`: invoices and their
// states, payments and funding sources, accounts, transfers and dashboards, payouts, payment links,
// the subscription catalog and subscriptions, merchants and identity, and the interface's
// platform rules (authentication, paths, versioning, the notification hub).
import type { Scenario } from '../types.js';
import { catalogInventory, catalogProducts, catalogSubscriptions } from './commerce/catalog.js';
import { catalogPlans } from './commerce/catalog-plans.js';
import { commerceFidelity } from './commerce/fidelity.js';
import { fundingSourceScenarios } from './commerce/funding-sources.js';
import { fundsScenarios } from './commerce/funds.js';
import { hubScenarios } from './commerce/hub.js';
import { transferScenarios } from './commerce/transfers.js';
import { identityScenarios } from './commerce/identity.js';
import { invoiceStateScenarios } from './commerce/invoice-states.js';
import { locationScenarios } from './commerce/locations.js';
import { invoiceConventions } from './commerce/invoice-conventions.js';
import { commerceInvoiceScenarios, invoicePaymentPage } from './commerce/invoices.js';
import { publicLinkScenarios } from './commerce/link-public.js';
import { linkOperations } from './commerce/links.js';
import { commerceMeteredUsage } from './commerce/metered-usage.js';
import { commerceDirectPayments } from './commerce/direct-payments.js';
import { commercePayments } from './commerce/payments.js';
import { payoutScenarios } from './commerce/payouts.js';
import { commercePlatformScenarios } from './commerce/platform.js';

export const commerceScenarios: Scenario[] = [
  ...commerceInvoiceScenarios,
  ...invoiceConventions,
  ...invoicePaymentPage,
  ...fundingSourceScenarios,
  ...fundsScenarios,
  ...transferScenarios,
  ...invoiceStateScenarios,
  ...commercePayments,
  ...payoutScenarios,
  ...linkOperations,
  ...publicLinkScenarios,
  ...catalogProducts,
  ...catalogPlans,
  ...catalogInventory,
  ...catalogSubscriptions,
  ...commerceMeteredUsage,
  ...commercePlatformScenarios,
  ...hubScenarios,
  ...commerceDirectPayments,
  ...identityScenarios,
  ...locationScenarios,
  ...commerceFidelity,
];
