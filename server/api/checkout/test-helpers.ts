import { receivePayment } from '../../domain/invoice-payments/payment-details.js';
import { settlePayment } from '../../domain/checkout/payment-operations.js';
import { payQr } from '../../domain/checkout/session-qr.js';
import { createSandboxMerchant } from '../../domain/merchants/merchant.service.js';
import { listMessages } from '../../domain/messages/message.service.js';
import { failNextPayout, failPayoutNow } from '../../domain/payouts/payouts.service.js';
import { advanceSandboxClock } from '../../domain/clocks/clock-advance.js';
import { failTransferNow } from '../../domain/transfers/transfer-processing.js';
import { rejectInvoice } from '../../domain/invoices/invoice.service.js';
import { listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { invoiceView } from './views/invoice.view.js';
import { payoutView } from './views/payout.view.js';
import { paymentReceivedView, qrPaidView, testClockView, testMerchantView, testMessageView } from './views/misc.view.js';
import { settlementView } from './views/payment.view.js';
import { transferEventView } from './views/transfer.view.js';

/** Test-mode helpers (live keys are refused before these run). */
export const testHelperHandlers: CheckoutHandlers = {
  async advanceTestClock({ db, deps, tenant, body }) {
    try {
      return ok(testClockView(await advanceSandboxClock(db, deps.clock, tenant.merchantId, body.seconds, deps.dueWork)));
    } finally {
      // This process's next request reads the new offset (others hear of it from the database).
      deps.sandboxOffsets.forget(tenant.merchantId);
    }
  },
  async settleTestPayment({ db, deps, tenant, path }) {
    return ok(settlementView(await settlePayment(db, deps.clock, tenant, path.paymentId)));
  },
  async simulatePaymentReceived({ db, deps, tenant, path }) {
    return ok(paymentReceivedView(await receivePayment(db, deps.clock, tenant, path.paymentId)));
  },
  async simulateQrPaid({ db, deps, tenant, path }) {
    return ok(qrPaidView(await payQr(db, deps.clock, tenant, path.id)));
  },
  async createTestMerchant({ db, tenant, body }) {
    return { status: 201, body: testMerchantView(await createSandboxMerchant(db, tenant.merchantId, body?.name, body?.defaultCurrency, body?.cardHolds)) };
  },
  async failNextTestPayout({ db, deps, tenant, body }) {
    const armed = await failNextPayout(db, deps.clock, tenant, body?.failureReason);
    return ok({ object: 'test_payout_failure' as const, failureReason: armed.failureReason, armedAt: armed.armedAt.toISOString(), livemode: false as const });
  },
  async failTestPayout({ db, deps, tenant, path, body }) {
    return ok(payoutView(await failPayoutNow(db, deps.clock, tenant, path.id, body?.failureReason)));
  },
  async failTestTransfer({ db, deps, tenant, path, body }) {
    return ok(transferEventView(await failTransferNow(db, deps.clock, tenant, path.transferId, body?.failureReason)));
  },
  async rejectTestInvoice({ db, deps, tenant, path }) {
    return ok(invoiceView(await rejectInvoice(db, tenant, path.id), deps.config.publicBaseUrl));
  },
  async listTestMessages({ db, tenant, query }) {
    return ok(listOf(await listMessages(db, tenant, { ...pageOf(query, 25), to: query.to, kind: query.kind }), testMessageView));
  },
  /**
   * Fails as an unexpected failure does, for testing a client's retries: an ordinary Error (not an
   * AppError), so the real error path answers it (500 `internal_error`, logged at error level with
   * the request id; this message marks it deliberate in the log and never reaches the body).
   */
  async simulateServerError() {
    throw new Error('test helper: deliberate server error');
  },
};
