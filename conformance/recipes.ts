// How to reach each operation's documented success path on a real deployment: what to create
// first (through the API, with names carrying the run id) and what to send. An implemented
// operation without a recipe fails its success case, so each capability adds its recipes in
// recipes/, one file per area.
import { auditRecipes } from './recipes/audit.js';
import { catalogRecipes } from './recipes/catalog.js';
import { commerceRecipes } from './recipes/commerce.js';
import type { Recipe } from './recipes/fixtures.js';
import { commerceInvoiceRecipes, invoiceRecipes } from './recipes/invoices.js';
import { paymentRecipes } from './recipes/payments.js';
import { requestLogRecipes } from './recipes/request-logs.js';
import { sessionRecipes } from './recipes/sessions.js';
import { webhookRecipes } from './recipes/webhooks.js';

export const recipes: Record<string, Recipe> = {
  ...commerceRecipes,
  ...webhookRecipes,
  ...paymentRecipes,
  ...invoiceRecipes,
  ...sessionRecipes,
  ...catalogRecipes,
  ...commerceInvoiceRecipes,
  ...requestLogRecipes,
  ...auditRecipes,
  // Its documented answer is 501, always.
  createClientToken: { success: async () => ({ path: '/v1/client-token' }), expect: [501] },
  // A test helper that fails on purpose, as an unexpected failure does: its documented answer is 500.
  simulateServerError: { success: async () => ({ path: '/v1/test-helpers/server-error' }), expect: [500] },
};
