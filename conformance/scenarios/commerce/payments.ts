// Paying invoices through the Commerce interface (`POST /api/payment/payinvoice`) and payments by
// id (`/v1/payment`): the approval actions, the `isSuccess` rule, the sandbox cards, paying by
// identifier, declines as answers, and a card hold with its capture.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { COMMERCE_DOC, source } from '../fixtures/scenario.js';

const INVOICE = 'createCommerceInvoice';
const PAY = [INVOICE, 'listInvoicePaymentMethods', 'payInvoice'];

const PAYMENT_RESPONSE = source(COMMERCE_DOC, 'Resources and their fields', 'Payment response');
const PAYMENTS = source(COMMERCE_DOC, 'Endpoints', 'Payments and funding sources');
const PAYMENT_RULES = source(COMMERCE_DOC, 'Endpoints', 'Payments and funding sources', 'Rules');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');
const ERRORS = source(COMMERCE_DOC, 'Errors');

export const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const THREE_DS = '4000000000003220';
const INSUFFICIENT = '4000000000009995';

export const apiKey = (ctx: ConformanceContext): string => ctx.options.apiKey ?? ctx.options.secretKey;
const expiry = () => `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`;
export const card = (cardNumber: string) => ({ name: 'Conformance Payer', cardNumber, expiryDate: expiry(), cvv: '123' });

/** A new Commerce invoice of one item, 2 × 42.50 USD = 85.00. */
export async function newInvoice(ctx: ConformanceContext, extra: Record<string, unknown> = {}): Promise<{ id: number; identifier: string }> {
  const res = await call(ctx, 'commerce', INVOICE, {
    method: 'POST',
    path: '/v1/invoice',
    apiKey: apiKey(ctx),
    body: {
      currencyCode: 'USD',
      description: 'Conformance invoice',
      items: [{ name: 'Workshop seat', unitCost: 42.5, quantity: 2 }],
      sourceInfo: { firstName: 'Ana', lastName: 'Lopez', email: 'ana.lopez@example.com' },
      ...extra,
    },
  });
  expectStatus(res, 201, 'create a Commerce invoice');
  return { id: res.json.id, identifier: res.json.identifier };
}

/** The invoice's enabled payment option of this method (and card brand, for cards). */
export async function optionOf(ctx: ConformanceContext, invoiceId: number, method: string, name?: string): Promise<number> {
  const res = await call(ctx, 'commerce', 'listInvoicePaymentMethods', { method: 'GET', path: `/v1/invoice/${invoiceId}/PaymentMethods`, apiKey: apiKey(ctx) });
  expectStatus(res, 200, "list the invoice's payment methods");
  const options: { id: number; name: string; paymentMethodId: string; isEnabled: boolean }[] = res.json.value;
  const option = options.find((o) => o.isEnabled && o.paymentMethodId === method && (name === undefined || o.name.toLowerCase() === name.toLowerCase()));
  assert.ok(option, `the invoice offers an enabled ${name ?? method} option: ${JSON.stringify(options)}`);
  return option.id;
}

export const payInvoice = (ctx: ConformanceContext, body: Record<string, unknown>): Promise<HttpResult> =>
  call(ctx, 'commerce', 'payInvoice', { method: 'POST', path: '/api/payment/payinvoice', apiKey: apiKey(ctx), body });

/** Pays a new invoice by card; answers the payment response. */
async function payByCard(
  ctx: ConformanceContext,
  cardNumber: string,
  brand = 'Visa',
): Promise<{ invoice: { id: number; identifier: string }; res: HttpResult }> {
  const invoice = await newInvoice(ctx);
  const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: await optionOf(ctx, invoice.id, 'CreditCard', brand), card: card(cardNumber) });
  expectStatus(res, 200, 'pay the invoice by card');
  return { invoice, res };
}

/** The contract's rule: `isSuccess` exactly when the status is Success or CustomerAuthRequired. */
function assertIsSuccessRule(body: { isSuccess: boolean; paymentStatusId: string }): void {
  assert.equal(
    body.isSuccess,
    ['Success', 'CustomerAuthRequired'].includes(body.paymentStatusId),
    `isSuccess ${body.isSuccess} with paymentStatusId ${body.paymentStatusId}`,
  );
}

const RESPONSE_FIELDS = [
  'referenceNumber',
  'invoiceIdentifier',
  'amountPaid',
  'amountDue',
  'feePaid',
  'currency',
  'paymentStatusId',
  'paymentDateTime',
  'paymentMethod',
  'isSuccess',
  'approvalAction',
  'approvalDataOrUrl',
  'is3DSecureAuth',
  'authorizationCode',
  'hostMessage',
];

export const commercePayments: Scenario[] = [
  {
    id: 'commerce.payments.rule-1-approval-none',
    title: '`approvalAction` `None` means the payment is complete',
    source: PAYMENT_RULES,
    requires: [...PAY, 'getCommerceInvoice'],
    serverOnly: true,
    async run(ctx) {
      const { invoice, res } = await payByCard(ctx, VISA);
      assert.equal(res.json.approvalAction, 'None');
      assert.equal(res.json.paymentStatusId, 'Success');
      const after = await call(ctx, 'commerce', 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${invoice.id}`, apiKey: apiKey(ctx) });
      expectStatus(after, 200, 'read the invoice back');
      assert.equal(after.json.status, 'Paid', 'a complete payment of all that was due leaves the invoice Paid');
    },
  },
  {
    id: 'commerce.payments.rule-1-approval-redirect',
    title: '`approvalAction` `Redirect` means 3-D Secure: redirect the payer to `approvalDataOrUrl`',
    source: PAYMENT_RULES,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const { res } = await payByCard(ctx, THREE_DS);
      assert.equal(res.json.approvalAction, 'Redirect');
      assert.equal(res.json.is3DSecureAuth, true);
      assert.match(String(res.json.approvalDataOrUrl), /^https?:\/\//, 'approvalDataOrUrl is the URL to send the payer to');
    },
  },
  {
    id: 'commerce.payments.rule-1-approval-qr',
    title: '`approvalAction` `QrCode` means show a QR code for the payer to scan',
    source: PAYMENT_RULES,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const res = await payInvoice(ctx, { invoiceIdentifier: invoice.identifier, paymentOptionId: await optionOf(ctx, invoice.id, 'GatewayWallet') });
      expectStatus(res, 200, 'pay by wallet');
      assert.equal(res.json.approvalAction, 'QrCode');
      assert.equal(res.json.paymentStatusId, 'CustomerAuthRequired');
      assert.ok(typeof res.json.approvalDataOrUrl === 'string' && res.json.approvalDataOrUrl.length > 0, 'the QR payload is in approvalDataOrUrl');
    },
  },
  {
    id: 'commerce.payments.rule-2-host-message',
    title: 'When `isSuccess` is false, `hostMessage` carries the reason',
    source: PAYMENT_RULES,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const { res } = await payByCard(ctx, INSUFFICIENT);
      assert.equal(res.json.isSuccess, false);
      assert.ok(
        typeof res.json.hostMessage === 'string' && /insufficient funds/i.test(res.json.hostMessage),
        `hostMessage gives the reason: ${res.json.hostMessage}`,
      );
    },
  },
  {
    id: 'commerce.payments.is-success-rule',
    title: '`isSuccess` is true exactly when `paymentStatusId` is `Success` or `CustomerAuthRequired` (checked on success, 3-D Secure and decline)',
    source: PAYMENT_RESPONSE,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const seen = new Set<string>();
      for (const number of [VISA, THREE_DS, INSUFFICIENT]) {
        const { res } = await payByCard(ctx, number);
        assertIsSuccessRule(res.json);
        seen.add(res.json.paymentStatusId);
      }
      assert.deepEqual([...seen].sort(), ['CustomerAuthRequired', 'Failed', 'Success']);
    },
  },
  {
    id: 'commerce.payments.response-fields',
    title:
      'The payment response carries referenceNumber, invoiceIdentifier, amountPaid, amountDue, feePaid, currency, paymentStatusId, paymentDateTime, paymentMethod, isSuccess, approvalAction, approvalDataOrUrl, is3DSecureAuth, authorizationCode and hostMessage',
    source: PAYMENT_RESPONSE,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const { invoice, res } = await payByCard(ctx, VISA);
      for (const field of RESPONSE_FIELDS) assert.ok(field in res.json, `the payment response carries ${field}`);
      assert.equal(res.json.invoiceIdentifier, invoice.identifier);
      assert.equal(res.json.amountPaid, 85);
      assert.equal(res.json.amountDue, 0);
      assert.equal(res.json.currency, 'USD');
      assert.equal(res.json.paymentMethod, 'CreditCard');
    },
  },
  {
    id: 'commerce.payments.rule-3-option-from-payment-methods',
    title: "The `paymentOptionId` is the `id` of an entry of the invoice's payment methods; card payments use entries with `paymentMethodId` `CreditCard`",
    source: PAYMENT_RULES,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: 2_000_000_000, card: card(VISA) });
      expectError(res, 400, 'invalid_request', undefined, 'paymentOptionId');
      const paid = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: await optionOf(ctx, invoice.id, 'CreditCard', 'Visa'), card: card(VISA) });
      expectStatus(paid, 200, 'pay with the CreditCard entry');
      assert.equal(paid.json.paymentStatusId, 'Success');
    },
  },
  {
    id: 'commerce.payments.rule-4-sandbox-success-two-brands',
    title: 'Sandbox cards of two brands succeed at once, with any future expiry and any 3-digit CVV',
    source: PAYMENT_RULES,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      for (const [number, brand, cvv] of [
        [VISA, 'Visa', '987'],
        [MASTERCARD, 'Mastercard', '404'],
      ] as const) {
        const invoice = await newInvoice(ctx);
        const res = await payInvoice(ctx, {
          invoiceId: invoice.id,
          paymentOptionId: await optionOf(ctx, invoice.id, 'CreditCard', brand),
          card: { ...card(number), cvv, expiryDate: '01/39' },
        });
        expectStatus(res, 200, `pay with the ${brand} sandbox card`);
        assert.equal(res.json.paymentStatusId, 'Success', `${brand}: ${JSON.stringify(res.json)}`);
        assert.equal(res.json.approvalAction, 'None');
      }
    },
  },
  {
    id: 'commerce.payments.rule-4-sandbox-3ds',
    title: 'A sandbox card asks for a 3-D Secure redirect',
    source: PAYMENT_RULES,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const { res } = await payByCard(ctx, THREE_DS);
      assert.equal(res.json.paymentStatusId, 'CustomerAuthRequired');
      assert.equal(res.json.approvalAction, 'Redirect');
      assert.equal(res.json.amountPaid, 0, 'nothing is taken before the payer authenticates');
    },
  },
  {
    id: 'commerce.payments.rule-4-sandbox-insufficient-funds',
    title: "A sandbox card is declined with 'insufficient funds'",
    source: PAYMENT_RULES,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const { res } = await payByCard(ctx, INSUFFICIENT);
      assert.equal(res.json.paymentStatusId, 'Failed');
      assert.match(String(res.json.hostMessage), /insufficient funds/i);
      assert.equal(res.json.amountPaid, 0);
      assert.equal(res.json.amountDue, 85);
    },
  },
  {
    id: 'commerce.payments.by-identifier',
    title: 'An invoice can be paid by `invoiceIdentifier` as well as by `invoiceId`',
    source: PAYMENTS,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const res = await payInvoice(ctx, {
        invoiceIdentifier: invoice.identifier,
        paymentOptionId: await optionOf(ctx, invoice.id, 'CreditCard', 'Visa'),
        card: card(VISA),
      });
      expectStatus(res, 200, 'pay by identifier');
      assert.equal(res.json.invoiceIdentifier, invoice.identifier);
      assert.equal(res.json.paymentStatusId, 'Success');
    },
  },
  {
    id: 'commerce.payments.decline-not-error',
    title: 'A payment that does not succeed answers a payment response with `isSuccess` false and a `hostMessage`, not an error',
    source: ERRORS,
    requires: [...PAY],
    serverOnly: true,
    async run(ctx) {
      const { res } = await payByCard(ctx, INSUFFICIENT);
      assert.equal(res.json.error, undefined, 'a decline is no error body');
      assert.equal(res.json.isSuccess, false);
      assert.ok(res.json.hostMessage, 'hostMessage carries the reason');
    },
  },
];

/** A card payment of `amount` USD made with `POST /v1/payment`. */
async function createPayment(ctx: ConformanceContext, body: Record<string, unknown>): Promise<HttpResult> {
  const res = await call(ctx, 'commerce', 'createCommercePayment', {
    method: 'POST',
    path: '/v1/payment',
    apiKey: apiKey(ctx),
    body: { currency: 'USD', ...body },
  });
  expectStatus(res, 201, 'create a payment');
  return res;
}

export const commerceDirectPayments: Scenario[] = [
  {
    id: 'commerce.other.create-payment',
    title: '`POST /v1/payment` accepts the create-payment example (amount, currency, paymentMethod, description)',
    source: OTHER_OPS,
    requires: ['createCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const res = await createPayment(ctx, { amount: 25, paymentMethod: 'CreditCard', description: 'Conformance order', paymentOptionId: 1, card: card(VISA) });
      assert.equal(res.json.amount, 25);
      assert.equal(res.json.currency, 'USD');
      assert.equal(res.json.description, 'Conformance order');
      assert.equal(res.json.status, 'Success');
    },
  },
  {
    id: 'commerce.other.get-payment',
    title: '`GET /v1/payment/{id}` answers a payment',
    source: OTHER_OPS,
    requires: ['createCommercePayment', 'getCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const made = await createPayment(ctx, { amount: 31.5, paymentOptionId: 1, card: card(VISA), clientReferenceNumber: 'CONF-1' });
      const res = await call(ctx, 'commerce', 'getCommercePayment', { method: 'GET', path: `/v1/payment/${made.json.id}`, apiKey: apiKey(ctx) });
      expectStatus(res, 200, 'read the payment');
      assert.equal(res.json.id, made.json.id);
      assert.equal(res.json.amount, 31.5);
      assert.equal(res.json.clientReferenceNumber, 'CONF-1');
      assert.equal(res.json.invoiceId, made.json.invoiceId);
    },
  },
  {
    id: 'commerce.other.capture-payment',
    title: '`POST /v1/payment/{id}/capture` captures a held payment',
    source: OTHER_OPS,
    requires: ['createCommercePayment', 'captureCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const hold = await createPayment(ctx, { amount: 50, paymentOptionId: 1, card: card(VISA), captureMethod: 'Manual' });
      assert.equal(hold.json.holdStatus, 'Authorized');
      const res = await call(ctx, 'commerce', 'captureCommercePayment', {
        method: 'POST',
        path: `/v1/payment/${hold.json.id}/capture`,
        apiKey: apiKey(ctx),
        body: { amount: 40 },
      });
      expectStatus(res, 200, 'capture the hold');
      assert.equal(res.json.holdStatus, 'Captured');
      assert.equal(res.json.capturedAmount, 40);
      const twice = await call(ctx, 'commerce', 'captureCommercePayment', {
        method: 'POST',
        path: `/v1/payment/${hold.json.id}/capture`,
        apiKey: apiKey(ctx),
        body: {},
      });
      expectError(twice, 409, 'conflict', 'hold_not_capturable');
    },
  },
];
