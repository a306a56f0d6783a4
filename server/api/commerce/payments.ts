import { captureHeldPayment, getPaymentDetails } from '../../domain/invoice-payments/payment-details.js';
import { createDirectPayment } from '../../domain/invoice-payments/direct-payment.js';
import { payInvoiceWithOption } from '../../domain/invoice-payments/pay-invoice.js';
import { refundByReference } from '../../domain/invoice-payments/payment-refund.js';
import { created, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { commerceCaptureView, commercePaymentView, payerCardOf, paymentResponseView, refundResponseView } from './views/payment.view.js';

/** Paying invoices, and payments by id (Commerce interface). */
export const paymentHandlers: CommerceHandlers = {
  async payInvoice({ db, deps, tenant, body }) {
    const { card, amount, billingAddress: _billing, sessionToken: _page, originalPaymentReference, ...rest } = body;
    if (originalPaymentReference !== undefined) {
      const refund = {
        originalPaymentReference,
        invoiceId: rest.invoiceId,
        invoiceIdentifier: rest.invoiceIdentifier,
        amount: amount === undefined ? undefined : String(amount),
      };
      return ok(refundResponseView(await refundByReference(db, deps.clock, tenant, refund), deps.config.publicBaseUrl));
    }
    const paid = await payInvoiceWithOption(db, deps.clock, tenant, {
      ...rest,
      amount: amount === undefined ? undefined : String(amount),
      card: payerCardOf(card),
    });
    return ok(paymentResponseView(paid, deps.config.publicBaseUrl));
  },
  async createCommercePayment({ db, deps, tenant, body }) {
    const { card, amount, captureMethod, sourceInfo, ...rest } = body;
    const input = {
      ...rest,
      amount: String(amount),
      card: payerCardOf(card),
      captureMethod: captureMethod === 'Manual' ? ('manual' as const) : ('automatic' as const),
      payer: sourceInfo,
    };
    return created(commercePaymentView(await createDirectPayment(db, deps.clock, tenant, input), deps.config.publicBaseUrl));
  },
  async getCommercePayment({ db, deps, tenant, path }) {
    return ok(commercePaymentView(await getPaymentDetails(db, deps.clock, tenant, path.id), deps.config.publicBaseUrl));
  },
  async captureCommercePayment({ db, deps, tenant, path, body }) {
    return ok(commerceCaptureView(await captureHeldPayment(db, deps.clock, tenant, path.id, body?.amount), deps.config.publicBaseUrl));
  },
};
