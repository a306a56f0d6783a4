// Paying invoices through the Commerce interface (`POST /api/payment/payinvoice`): the approval actions,
// the `isSuccess` rule, the sandbox cards, paying by identifier, and declines as answers.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { apiKey } from '../fixtures/keys.js';
import {
  assertIsSuccessRule,
  card,
  ERRORS,
  AMEX,
  INSUFFICIENT,
  MASTERCARD,
  newInvoice,
  optionOf,
  PAY,
  PAYMENT_RESPONSE,
  PAYMENT_RULES,
  PAYMENTS,
  payByCard,
  payInvoice,
  RESPONSE_FIELDS,
  THREE_DS,
  VISA,
} from '../fixtures/commerce-payments.js';

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
    title: 'Sandbox cards of two brands succeed at once through a `CreditCard` option, with any future expiry and any 3-digit CVV',
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
          paymentOptionId: await optionOf(ctx, invoice.id, 'CreditCard'),
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
    id: 'commerce.payments.rule-3-any-credit-card-option-every-brand',
    title: 'Every `CreditCard` option of an invoice takes cards of every brand (Visa, Mastercard, American Express), and the payment records the brand',
    source: PAYMENT_RULES,
    requires: [...PAY, 'listInvoicePaymentMethods', 'getCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const first = await newInvoice(ctx);
      const methods = await call(ctx, 'commerce', 'listInvoicePaymentMethods', {
        method: 'GET',
        path: `/v1/invoice/${first.id}/PaymentMethods`,
        apiKey: apiKey(ctx),
      });
      const options: { id: number; paymentMethodId: string; isEnabled: boolean }[] = methods.json.value;
      const cardOptions = options.filter((o) => o.isEnabled && o.paymentMethodId === 'CreditCard').map((o) => o.id);
      assert.ok(cardOptions.length > 0, `the invoice offers a CreditCard option: ${JSON.stringify(options)}`);
      for (const paymentOptionId of cardOptions)
        for (const [number, cvv, brand] of [
          [VISA, '123', 'visa'],
          [MASTERCARD, '123', 'mastercard'],
          [AMEX, '1234', 'amex'],
        ] as const) {
          const invoice = await newInvoice(ctx);
          const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId, card: { ...card(number), cvv } });
          expectStatus(res, 200, `pay with a ${brand} card through option ${paymentOptionId}`);
          assert.equal(res.json.paymentStatusId, 'Success', `${brand} through option ${paymentOptionId}: ${JSON.stringify(res.json)}`);
          assert.equal(res.json.cardBrand, brand, 'the answer shows the card brand');
          const shown = await call(ctx, 'commerce', 'getCommercePayment', { method: 'GET', path: `/v1/payment/${res.json.paymentId}`, apiKey: apiKey(ctx) });
          expectStatus(shown, 200, 'read the payment back');
          assert.equal(shown.json.paymentOptionId, paymentOptionId, 'the payment keeps the option it was made with');
          assert.equal(shown.json.cardBrand, brand, 'the payment keeps the brand');
        }
    },
  },
  {
    id: 'commerce.payments.rule-2-failed-not-error',
    title:
      'A card number that fails its check digit (Luhn) or an expired card is a `Failed` payment: 200 with `isSuccess` false and a `hostMessage`, recorded; only a request that breaks the contract is a 4xx',
    source: ERRORS,
    requires: [...PAY, 'getCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const paymentOptionId = await optionOf(ctx, invoice.id, 'CreditCard');
      for (const bad of [card('4242424242424241'), { ...card(VISA), expiryDate: '01/20' }]) {
        const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId, card: bad });
        expectStatus(res, 200, 'a card that cannot be charged is answered, not refused');
        assert.equal(res.json.paymentStatusId, 'Failed');
        assert.equal(res.json.isSuccess, false);
        assert.ok(res.json.hostMessage, 'hostMessage carries the reason');
        const shown = await call(ctx, 'commerce', 'getCommercePayment', { method: 'GET', path: `/v1/payment/${res.json.paymentId}`, apiKey: apiKey(ctx) });
        expectStatus(shown, 200, 'the failed payment is recorded');
        assert.equal(shown.json.status, 'Failed');
      }
      const malformed = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId, card: { ...card(VISA), cardNumber: 'not-a-number' } });
      expectError(malformed, 400, 'invalid_request', 'parameter_invalid', 'card.cardNumber');
    },
  },
  {
    id: 'commerce.payments.rule-1-bank-transfer-redirect',
    title:
      'A bank transfer answers `approvalAction` `Redirect` (one of the four values) to a page of payment instructions on this server, with `bankTransferInstructions`',
    source: PAYMENT_RULES,
    requires: [...PAY, 'listInvoicePaymentMethods'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const res = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: await optionOf(ctx, invoice.id, 'BankTransfer') });
      expectStatus(res, 200, 'pay by bank transfer');
      assert.equal(res.json.approvalAction, 'Redirect');
      assert.ok(['None', 'Redirect', 'FormData', 'QrCode'].includes(res.json.approvalAction));
      const url = new URL(String(res.json.approvalDataOrUrl));
      assert.match(url.pathname, new RegExp(`^/invoice/${invoice.identifier}/bank-transfer/${res.json.paymentId}$`));
      const instructions = res.json.bankTransferInstructions;
      assert.ok(instructions?.iban && instructions.reference, `the answer carries the instructions: ${JSON.stringify(res.json)}`);
      const page = await fetch(new URL(url.pathname, ctx.options.baseUrl));
      assert.equal(page.status, 200, 'the instructions page is served');
      const text = await page.text();
      assert.ok(text.includes(instructions.iban) && text.includes(instructions.reference), 'the page shows the IBAN and the reference');
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
