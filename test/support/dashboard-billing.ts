// Objects of the dashboard's billing and money sections, made through the API for one merchant
// (test mode): a subscription on a plan, invoices, a payment link, a settled payment paid out on the
// clock, a transfer and a dispute.
import { expect } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { confirmWithCard } from './billing.js';
import { fundsKit } from './funds.js';
import { beans } from './links.js';
import type { TestServer } from './server.js';

export interface BillingObjects {
  planId: number;
  productId: number;
  subscriptionId: number;
  invoiceId: number;
  invoiceNumber: string;
  voidableInvoiceId: number;
  linkId: number;
  transferId: number;
  disputeId: string;
}

/** Makes one of each object for merchant `m` through the API. */
export async function billingObjects(t: TestServer, m: MerchantCredentials): Promise<BillingObjects> {
  const key = m.keys.test.secret;
  const funds = fundsKit(t);
  const product = await t.call('POST', '/v1/products', { key, body: { name: 'Roastery club' } });
  const plan = await t.call('POST', '/v1/plans', {
    key,
    body: { productId: product.json.id, name: 'Beans monthly', amount: 19.5, currency: 'USD', interval: 'month' },
  });
  expect(plan.status, plan.text).toBe(201);
  const customer = await t.call('POST', '/v1/customers', { key, body: { email: 'club@example.com' } });
  const session = await t.call('POST', '/v1/checkout-sessions', {
    key,
    body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: plan.json.data.id, clientId: customer.json.data.id },
  });
  expect(session.status, session.text).toBe(201);
  expect((await confirmWithCard(t, m.keys.test.publishable, session.json)).status).toBe(200);
  const subs = await t.call('GET', `/v1/subscriptions?clientId=${customer.json.data.id}`, { key });
  const invoiceBody = {
    customer: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez' },
    currency: 'USD',
    lineItems: [{ name: 'Consulting', quantity: 3, unitAmount: 120.5 }],
  };
  const invoice = await t.call('POST', '/v1/invoices', { key, body: invoiceBody });
  const voidable = await t.call('POST', '/v1/invoices', { key, body: { ...invoiceBody, lineItems: [{ name: 'Travel', quantity: 1, unitAmount: 45.25 }] } });
  expect(voidable.status, voidable.text).toBe(201);
  const link = await t.call('POST', '/v1/PaymentLink', { apiKey: key, body: beans });
  expect(link.status, link.text).toBe(201);
  await funds.funded(m, 100);
  const account = await funds.account(m);
  const transfer = await t.call('POST', '/v1/transfer', {
    apiKey: key,
    body: { currencyCode: 'USD', sourceAccountId: account.id, destinationAccountNumber: 'DE89370400440532013000', amount: 10, transferAction: 'CBDCTransfer' },
  });
  expect(transfer.status, transfer.text).toBe(201);
  // The next 00:00 UTC pays out what is available (the settled payment, less the transfer).
  expect((await t.call('POST', '/v1/test-helpers/clock/advance', { key, body: { seconds: 26 * 3600 } })).status).toBe(200);
  const disputed = await funds.paid(m, 30);
  const dispute = await t.call('POST', `/v1/test-helpers/payments/${disputed}/dispute`, { key, body: {} });
  expect(dispute.status, dispute.text).toBe(201);
  return {
    planId: plan.json.data.id,
    productId: product.json.id,
    subscriptionId: subs.json.data.data[0].id,
    invoiceId: invoice.json.id,
    invoiceNumber: invoice.json.number ?? invoice.json.invoiceNumber,
    voidableInvoiceId: voidable.json.id,
    linkId: link.json.id,
    transferId: transfer.json.id,
    disputeId: dispute.json.id,
  };
}
