// Invoices and customer-portal sessions (checkout-billing-api.md › Other scoped operations).
import type { Scenario } from '../../types.js';
import { MESSAGES, PAY_CARD, SESSION } from '../fixtures/operations.js';
import { pending } from '../fixtures/scenario.js';
import { OTHER_SCOPED } from '../fixtures/sections.js';

export const invoicesAndPortal: Scenario[] = [
  pending('checkout.invoices.create', '`POST /v1/invoices` creates an invoice (scope `invoice.create`)', OTHER_SCOPED, ['createCustomer', 'createInvoice']),
  pending('checkout.invoices.by-reference', '`GET /v1/invoices?reference=` finds the invoice of a pay-link reference', OTHER_SCOPED, ['createInvoice', 'listInvoices']),
  pending('checkout.invoices.retrieve', '`GET /v1/invoices/{id}` answers the invoice; another merchant\'s answers 404', OTHER_SCOPED, ['createInvoice', 'retrieveInvoice']),
  pending('checkout.invoices.pdf', '`GET /v1/invoices/{id}/pdf` answers the invoice as a PDF document', OTHER_SCOPED, ['createInvoice', 'getInvoicePdf']),
  pending('checkout.invoices.send', '`POST /v1/invoices/{id}/send` emails the invoice (scope `invoice.update`)', OTHER_SCOPED, ['createInvoice', 'sendInvoice', MESSAGES]),
  pending('checkout.invoices.void', '`POST /v1/invoices/{id}/void` voids an unpaid invoice; it can no longer be paid', OTHER_SCOPED, ['createInvoice', 'voidInvoice', SESSION]),
  pending('checkout.invoices.refund', '`POST /v1/invoices/{id}/refund` refunds the invoice\'s payment (scope `invoice.refund`)', OTHER_SCOPED, ['createInvoice', ...PAY_CARD, 'refundInvoice']),
  pending('checkout.portal.create', '`POST /v1/portal-sessions` creates a customer-portal session for a customer `clientId`', OTHER_SCOPED, ['createCustomer', 'createPortalSession']),
  pending('checkout.portal.needs-client', 'A portal session needs a customer `clientId` of the merchant; without one, or with another merchant\'s, it is refused', OTHER_SCOPED, ['createCustomer', 'createPortalSession']),
];
