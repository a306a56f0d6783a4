// What the tenancy matrix (test/platform/tenancy.test.ts) calls each operation on: one merchant's
// objects in one mode (a World, made by tenancy-fixtures.ts), and, per operationId, which of those
// objects its path ids refer to, with a body valid for it.
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';

export interface Session {
  id: string;
  clientSecret: string;
}
/** One merchant's objects in one mode; customer, product, plan and webhook are shared by both modes. */
export interface World {
  merchant: MerchantCredentials;
  livemode: boolean;
  /** Text found in this world's objects only (names, emails, amounts). */
  markers: string[];
  openSession: Session;
  qrSession: Session;
  paidSession: Session;
  heldSession: Session;
  paidPayment: string;
  heldPayment: string;
  /** A dispute on another paid payment (a live one is opened through the service: the helper is test-mode only). */
  dispute: string;
  /** A payout (`po_…`) in transit, made through the service (the schedule would wait for the next day). */
  payout: string;
  /** A transfer out of its account, `Processing` (Commerce; failed by a Checkout test helper). */
  transfer: number;
  /** Its wallet account in USD (Commerce), and a funding source that waits for its code. */
  account: number;
  fundingSource: number;
  /** A payment link (Commerce). */
  paymentLink: number;
  invoice: number;
  subscription: number;
  /** The subscription's item (its plan is not metered: usage on it is refused, but only after the tenant). */
  subscriptionItem: number;
  customer: number;
  product: string;
  plan: number;
  /** An inventory item of the product (Commerce catalog), shared by both modes like the product. */
  inventoryItem: number;
  webhook: number;
  delivery: string;
  /** The newest event of this mode (the test send's). */
  event: string;
  /** A role (shared by both modes) and a restricted key of this mode carrying it (its id, and its text). */
  role: number;
  restrictedKey: number;
  restrictedKeyText: string;
  /** The request log of one of its requests (written in batches: the fixture waits for it). */
  requestLog: string;
}
export type Kind = Exclude<keyof World, 'merchant' | 'livemode' | 'markers' | 'restrictedKeyText'>;
export type SessionKind = 'openSession' | 'qrSession' | 'paidSession' | 'heldSession';
export const isSessionKind = (k: Kind): k is SessionKind => k.endsWith('Session');

/**
 * Objects both modes of a merchant share, by design (docs/webhooks.md, the contract's plan,
 * product, customer and webhook-configuration descriptions): a test key reads a live-made one.
 */
export const MODE_SHARED: ReadonlySet<Kind> = new Set<Kind>(['customer', 'product', 'plan', 'webhook', 'inventoryItem', 'role']);
/** Mode-shared kinds without a read by id (their list proves it: test/commerce/catalog-products.test.ts). */
export const LIST_ONLY: ReadonlySet<Kind> = new Set<Kind>(['inventoryItem']);

export interface Target {
  /** The object the path's first id refers to. */
  kind: Kind;
  params(w: World): Record<string, string | number>;
  /** A body valid for the operation, so that only the tenant can refuse it. */
  body?: unknown;
}
const on = (kind: Exclude<Kind, 'delivery' | 'restrictedKey'>, body?: unknown, name = 'id'): Target => ({
  kind,
  params: (w) => ({ [name]: (isSessionKind(kind) ? w[kind].id : w[kind]) as string | number }),
  body,
});
/** A card that pays: the body of a tokenization. */
export const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

/** How to reach the object each id-taking operation acts on. A new one must be added here. */
export const MATRIX: Record<string, Target> = {
  retrieveCheckoutSession: on('openSession'),
  getCheckoutSessionStatus: on('openSession'),
  cancelCheckoutSession: on('openSession'),
  tokenizeCard: on('openSession', card),
  confirmCheckoutSession: on('openSession', { paymentMethodId: 'pm_test_doesnotmatter' }),
  listSavedCards: on('openSession'),
  verifySavedCard: on('openSession', { paymentMethodId: 'pm_test_doesnotmatter' }),
  confirmSavedCardOtp: on('openSession', { verificationId: 'sv_doesnotmatter', otp: '123456' }),
  lookupSrcCards: on('openSession', { email: 'maria.lopez@example.com' }),
  authenticateSrcCard: on('openSession', { srcCardId: 'src_3f8a2c1e9b7d4a60', validationData: '123456' }),
  withdrawCheckoutSessionQr: on('qrSession'),
  simulateQrPaid: on('qrSession'),
  refundCheckoutSession: on('paidSession', {}),
  refundPayment: on('paidPayment', {}, 'paymentId'),
  settleTestPayment: on('paidPayment', undefined, 'paymentId'),
  openTestDispute: on('paidPayment', {}, 'paymentId'),
  retrieveDispute: on('dispute'),
  retrieveEvent: on('event'),
  updateTestDispute: on('dispute', { status: 'UnderReview' }),
  closeTestDispute: on('dispute', { outcome: 'Lost' }),
  simulatePaymentReceived: on('paidPayment', undefined, 'paymentId'),
  getCommercePayment: on('paidPayment'),
  captureCommercePayment: on('heldPayment', {}),
  failTestPayout: on('payout', {}),
  failTestTransfer: on('transfer', {}, 'transferId'),
  getAccountBalance: on('account'),
  verifyFundingSource: on('fundingSource', { VerificationCode: '123456' }),
  capturePayment: on('heldPayment', {}, 'paymentId'),
  releasePayment: on('heldPayment', {}, 'paymentId'),
  retrieveInvoice: on('invoice'),
  voidInvoice: on('invoice'),
  rejectTestInvoice: on('invoice'),
  getInvoicePdf: on('invoice'),
  sendInvoice: on('invoice'),
  refundInvoice: on('invoice', {}),
  retrieveSubscription: on('subscription'),
  listSubscriptionInvoices: on('subscription'),
  cancelSubscription: on('subscription', {}),
  pauseSubscription: on('subscription', {}),
  resumeSubscription: on('subscription'),
  changeSubscriptionPlan: { kind: 'subscription', params: (w) => ({ id: w.subscription }), body: { planId: 1 } },
  // A parameter the path does not name goes to the query (planId is required there).
  createUsageRecord: on('subscriptionItem', { quantity: 1 }),
  previewSubscriptionPlanChange: { kind: 'subscription', params: (w) => ({ id: w.subscription, planId: w.plan }) },
  retrieveCustomer: on('customer'),
  retrieveProduct: on('product'),
  retrievePlan: on('plan'),
  updatePlan: on('plan', { name: 'Taken over', active: false }),
  archivePlan: on('plan'),
  retrieveWebhookConfiguration: on('webhook'),
  updateWebhookConfiguration: on('webhook', { enabled: false, description: 'Taken over' }),
  deleteWebhookConfiguration: on('webhook'),
  sendWebhookTestEvent: on('webhook', {}),
  listWebhookDeliveries: on('webhook'),
  resendWebhookDelivery: { kind: 'delivery', params: (w) => ({ id: w.webhook, deliveryId: w.delivery }) },
  // Commerce: the same invoices, through x-api-key.
  getCommerceInvoice: on('invoice'),
  listInvoicePaymentMethods: on('invoice'),
  sendCommerceInvoice: on('invoice', {}),
  // Commerce: the subscription catalog (the same products and plans) and subscriptions.
  updateSubscriptionProduct: on('product', { name: 'Taken over' }),
  deleteSubscriptionProduct: on('product'),
  updateSubscriptionPlan: on('plan', { name: 'Taken over', status: 'Inactive' }),
  deleteSubscriptionPlan: on('plan'),
  updateSubscriptionInventoryItem: on('inventoryItem', { status: 'Discontinued' }),
  deleteSubscriptionInventoryItem: on('inventoryItem'),
  cancelCommerceSubscription: on('subscription', { cancelAtPeriodEnd: false }),
  recordCommerceSubscriptionUsage: on('subscription', { quantity: 1 }),
  // Roles are the merchant's in both modes; a restricted key is its mode's.
  getRole: on('role'),
  // Refused with 404 to another merchant; never reached across modes here (an active key carries it: 409).
  deleteRole: on('role'),
  // The role is shared, its keys are the mode's: the other mode's key lists that mode's keys only.
  listRestrictedKeys: on('role'),
  createRestrictedKey: on('role', {}),
  getRestrictedKey: { kind: 'restrictedKey', params: (w) => ({ id: w.role, keyId: w.restrictedKey }) },
  revokeRestrictedKey: { kind: 'restrictedKey', params: (w) => ({ id: w.role, keyId: w.restrictedKey }) },
  updatePaymentLink: on('paymentLink', { name: 'Taken over' }),
  deletePaymentLink: on('paymentLink'),
  activatePaymentLink: on('paymentLink'),
  deactivatePaymentLink: on('paymentLink'),
  getPaymentLinkEmbedCode: on('paymentLink'),
  // The request log: the mode's, on both interfaces.
  retrieveRequestLog: on('requestLog'),
  getCommerceRequestLog: on('requestLog'),
};
