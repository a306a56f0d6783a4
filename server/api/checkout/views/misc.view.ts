// The small answers: saved cards and click to pay, the messages outbox, the sandbox clock and wallet.
import type { components } from '../../../../generated/checkout.js';
import type { InvoiceRow } from '../../../domain/invoices/invoice.tables.js';
import type { MessageRow } from '../../../domain/messages/message.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../../../domain/payments/payment.tables.js';
import type { SrcAuthenticated } from '../../../domain/checkout/click-to-pay.js';
import type { StartedVerification } from '../../../domain/checkout/saved-cards.js';
import type { SessionPayment } from '../../../domain/checkout/session-payment.js';
import type { SandboxMerchant } from '../../../domain/merchants/merchant.service.js';
import type { AdvancedClock } from '../../../domain/clocks/clock-advance.js';
import type { SrcDirectoryCard } from '../../../rails/src.js';
import { cardView } from './payment.view.js';

type Schemas = components['schemas'];

/** The saved-card list; all cards fit in one page. */
export const savedCardListView = (cards: PaymentMethodRow[]): Schemas['SavedCardList'] => ({
  object: 'list',
  data: cards.map((m) => ({ id: m.id, card: cardView(m), isDefault: m.is_default })),
  hasMore: false,
});

export const savedCardVerificationView = ({ verification, maskedPhone }: StartedVerification): Schemas['SavedCardVerification'] => ({
  verificationId: verification.id,
  status: 'otp_sent',
  maskedPhone,
  expiresAt: verification.expires_at.toISOString(),
});

export const srcLookupView = (cards: SrcDirectoryCard[]): Schemas['SrcLookupResult'] => ({
  enrolled: cards.length > 0,
  cards: cards.map((c) => ({ srcCardId: c.srcCardId, brand: c.brand, last4: c.last4, expiryMonth: c.expiryMonth, expiryYear: c.expiryYear, artUri: c.artUri })),
});

export const srcAuthenticationView = ({ method, srcCardId, expiresAt }: SrcAuthenticated): Schemas['SrcAuthentication'] => ({
  paymentMethodId: method.id,
  srcCardId,
  card: cardView(method),
  expiresAt: expiresAt.toISOString(),
});

/** An outbox row as the `message` object of `listTestMessages`. */
export const testMessageView = (m: MessageRow): Schemas['TestMessage'] => ({
  id: m.id,
  object: 'message',
  channel: m.channel,
  to: m.recipient,
  kind: m.kind,
  subject: m.subject,
  body: m.body,
  sessionId: m.session_id,
  createdAt: m.created_at.toISOString(),
});

export const testClockView = (c: AdvancedClock): Schemas['TestClock'] => ({
  object: 'test_clock',
  now: c.now.toISOString(),
  advancedBySeconds: c.advancedBySeconds,
  jobsRun: c.jobsRun,
  livemode: false,
});

/** A new sandbox merchant with its test keys (shown this once). */
export const testMerchantView = ({ merchant, keys }: SandboxMerchant): Schemas['TestMerchant'] => ({
  object: 'test_merchant',
  id: merchant.id,
  name: merchant.name,
  livemode: false,
  secretKey: keys.secret,
  publishableKey: keys.publishable,
  createdAt: new Date(merchant.created_at).toISOString(),
  expiresAt: new Date(merchant.sandbox_expires_at!).toISOString(),
});

export const qrPaidView = ({ session, payment }: SessionPayment): Schemas['TestQrPaidResult'] => ({
  sessionId: session.id,
  status: 'completed',
  paymentStatus: 'paid',
  paymentId: payment.id,
});

/** A test payment after its bank transfer arrived or its QR code was paid (a part payment leaves the invoice partially paid). */
export const paymentReceivedView = ({ payment, invoice }: { payment: PaymentRow; invoice: InvoiceRow }): Schemas['TestPaymentReceivedResult'] => ({
  paymentId: payment.id,
  status: 'succeeded',
  invoiceId: invoice.id,
  invoiceStatus: invoice.status === 'paid' ? 'paid' : 'partially_paid',
});
