// Cards on file and click to pay: allowSavedCards and enableClickToPay at creation, the saved-card
// list, the OTP check before a saved card is used, and SRC lookup and authenticate.
import assert from 'node:assert/strict';
import { latestOtp, SANDBOX_SRC } from '../../recipes/payment-fixtures.js';
import type { ConformanceContext, Scenario } from '../../types.js';
import { postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, publishableKey, tag } from '../fixtures/keys.js';
import { MESSAGES, PAY_CARD, RETRIEVE, SESSION } from '../fixtures/operations.js';
import { CARD_OBJECTS, CREATE_FIELDS, SESSION_ENDPOINTS } from '../fixtures/sections.js';
import { confirmWith, newSession, retrieveSession, SANDBOX_CARD, tokenizeOn } from '../fixtures/sessions.js';

const SAVED_CARD_SETUP = ['createCustomer', ...PAY_CARD];

/** A customer (with a phone, for the OTP) whose card went on file by paying a session that allows saved cards. */
async function customerWithSavedCard(ctx: ConformanceContext, label: string): Promise<{ customerId: number; phone: string; cardId: string }> {
  publishableKey(ctx); // Pending before anything is made when the run has no publishable key.
  const phone = `+1 415 555 ${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const customer = envelopeData(
    await postCustomer(ctx, { email: emailFor(ctx, label), name: 'Conformance Customer', phone, externalId: `conf-${tag(ctx)}-${label}` }),
    201,
    'create a customer',
  );
  const s = await newSession(ctx, { clientId: customer.id, allowSavedCards: true });
  const cardId = await tokenizeOn(ctx, s);
  expectStatus(await confirmWith(ctx, s, cardId), 200, 'pay with the card');
  return { customerId: customer.id, phone, cardId };
}

const savedCardsOf = (ctx: ConformanceContext, s: { id: string; clientSecret: string }) =>
  call(ctx, 'checkout', 'listSavedCards', {
    method: 'GET',
    path: `/v1/checkout-sessions/${s.id}/saved-cards`,
    key: publishableKey(ctx),
    clientSecret: s.clientSecret,
  });
const srcLookup = (ctx: ConformanceContext, s: { id: string; clientSecret: string }, email: string) =>
  call(ctx, 'checkout', 'lookupSrcCards', {
    method: 'POST',
    path: `/v1/checkout-sessions/${s.id}/src/lookup`,
    key: publishableKey(ctx),
    clientSecret: s.clientSecret,
    body: { email },
  });

export const savedCardsAndSrc: Scenario[] = [
  {
    id: 'checkout.sessions.create.allow-saved-cards',
    title: '`allowSavedCards` is kept and reported by retrieval (`allowGuestSavedCards`); without it the saved-card list is empty',
    source: CREATE_FIELDS,
    requires: [...SAVED_CARD_SETUP, RETRIEVE, 'listSavedCards'],
    serverOnly: true,
    async run(ctx) {
      const { customerId, cardId } = await customerWithSavedCard(ctx, 'allow-saved');
      const allowed = await newSession(ctx, { clientId: customerId, allowSavedCards: true });
      assert.equal((await retrieveSession(ctx, allowed.id)).allowGuestSavedCards, true, 'allowGuestSavedCards reports allowSavedCards true');
      const listed = await savedCardsOf(ctx, allowed);
      expectStatus(listed, 200, 'list saved cards');
      assert.ok(
        listed.json.data.some((c: any) => c.id === cardId),
        'the card on file is listed when saved cards are allowed',
      );
      const notAllowed = await newSession(ctx, { clientId: customerId });
      assert.equal((await retrieveSession(ctx, notAllowed.id)).allowGuestSavedCards, false, 'allowGuestSavedCards is false without allowSavedCards');
      assert.deepEqual((await savedCardsOf(ctx, notAllowed)).json.data, [], 'without allowSavedCards the list is empty');
    },
  },
  {
    id: 'checkout.sessions.create.click-to-pay',
    title: '`enableClickToPay` enables SRC: lookup works on such a session and is refused on one without it',
    source: CREATE_FIELDS,
    requires: [SESSION, 'lookupSrcCards'],
    serverOnly: true,
    async run(ctx) {
      expectStatus(await srcLookup(ctx, await newSession(ctx, { enableClickToPay: true }), SANDBOX_SRC.email), 200, 'lookup on a click-to-pay session');
      expectError(await srcLookup(ctx, await newSession(ctx), SANDBOX_SRC.email), 400, 'invalid_request', 'validation_error');
    },
  },
  {
    id: 'checkout.sessions.saved-cards.list',
    title: 'The saved-card list holds items {id, card {brand, last4, expiryMonth, expiryYear}, isDefault}',
    source: CARD_OBJECTS,
    requires: [...SAVED_CARD_SETUP, 'listSavedCards'],
    serverOnly: true,
    async run(ctx) {
      const { customerId, cardId } = await customerWithSavedCard(ctx, 'saved-list');
      const res = await savedCardsOf(ctx, await newSession(ctx, { clientId: customerId, allowSavedCards: true }));
      expectStatus(res, 200, 'list saved cards');
      assert.equal(res.json.object, 'list');
      const item = res.json.data.find((c: any) => c.id === cardId);
      assert.ok(item, `the paid card is on file: ${JSON.stringify(res.json.data)}`);
      assert.deepEqual(item.card, { brand: 'visa', last4: '4242', expiryMonth: SANDBOX_CARD.expiryMonth, expiryYear: SANDBOX_CARD.expiryYear });
      assert.equal(item.isDefault, true, "the customer's first card is the default");
    },
  },
  {
    id: 'checkout.sessions.saved-cards.verify-otp',
    title:
      'Using a saved card needs OTP: verify answers {verificationId, status `otp_sent`, maskedPhone, expiresAt}; confirm-otp answers {verified, paymentMethodId}',
    source: CARD_OBJECTS,
    requires: [...SAVED_CARD_SETUP, 'listSavedCards', 'verifySavedCard', 'confirmSavedCardOtp', MESSAGES],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const { customerId, phone, cardId } = await customerWithSavedCard(ctx, 'saved-otp');
      const s = await newSession(ctx, { clientId: customerId, allowSavedCards: true });
      const auth = { key: pk, clientSecret: s.clientSecret };
      const unverified = await call(ctx, 'checkout', 'confirmCheckoutSession', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/confirm`,
        ...auth,
        body: { paymentMethodId: cardId },
      });
      expectStatus(unverified, 400, 'confirm with a saved card before OTP verification');
      const v = await call(ctx, 'checkout', 'verifySavedCard', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/saved-cards/verify`,
        ...auth,
        body: { paymentMethodId: cardId },
      });
      expectStatus(v, 200, 'verify a saved card');
      assert.equal(v.json.status, 'otp_sent');
      assert.equal(typeof v.json.verificationId, 'string');
      assert.ok(
        v.json.maskedPhone.endsWith(phone.slice(-4)) && !v.json.maskedPhone.includes(phone.slice(3, 6)),
        `maskedPhone shows only the last digits: ${v.json.maskedPhone}`,
      );
      assert.ok(Number.isFinite(Date.parse(v.json.expiresAt)), 'expiresAt is a timestamp');
      const ok = await call(ctx, 'checkout', 'confirmSavedCardOtp', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/saved-cards/confirm-otp`,
        ...auth,
        body: { verificationId: v.json.verificationId, otp: await latestOtp(ctx, phone) },
      });
      expectStatus(ok, 200, 'confirm the one-time code');
      assert.deepEqual(ok.json, { verified: true, paymentMethodId: cardId });
      const paid = await call(ctx, 'checkout', 'confirmCheckoutSession', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/confirm`,
        ...auth,
        body: { paymentMethodId: ok.json.paymentMethodId },
      });
      expectStatus(paid, 200, 'pay with the verified saved card');
      assert.equal(paid.json.status, 'complete');
    },
  },
  {
    id: 'checkout.sessions.src.lookup',
    title: 'SRC lookup answers {enrolled, cards[] of {srcCardId, brand, last4, expiryMonth, expiryYear, artUri}}',
    source: CARD_OBJECTS,
    requires: [SESSION, 'lookupSrcCards'],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { enableClickToPay: true });
      const found = await srcLookup(ctx, s, SANDBOX_SRC.email);
      expectStatus(found, 200, 'look up an enrolled email');
      assert.equal(found.json.enrolled, true);
      assert.ok(found.json.cards.length > 0, 'an enrolled email has cards');
      for (const card of found.json.cards) {
        assert.deepEqual(Object.keys(card).sort(), ['artUri', 'brand', 'expiryMonth', 'expiryYear', 'last4', 'srcCardId']);
      }
      const none = await srcLookup(ctx, s, emailFor(ctx, 'not-enrolled'));
      expectStatus(none, 200, 'look up an email that is not enrolled');
      assert.deepEqual(none.json, { enrolled: false, cards: [] });
    },
  },
  {
    id: 'checkout.sessions.src.authenticate',
    title: 'SRC authenticate with `srcCardId` and `validationData` obtains a payment token usable with confirm',
    source: SESSION_ENDPOINTS,
    requires: [SESSION, 'lookupSrcCards', 'authenticateSrcCard', 'confirmCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const s = await newSession(ctx, { enableClickToPay: true });
      const srcCardId = (await srcLookup(ctx, s, SANDBOX_SRC.email)).json.cards[0].srcCardId;
      const token = await call(ctx, 'checkout', 'authenticateSrcCard', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/src/authenticate`,
        key: pk,
        clientSecret: s.clientSecret,
        body: { srcCardId, validationData: SANDBOX_SRC.validationData },
      });
      expectStatus(token, 200, 'authenticate a click-to-pay card');
      assert.match(token.json.paymentMethodId, /^pm_/);
      assert.equal(token.json.srcCardId, srcCardId);
      const paid = await call(ctx, 'checkout', 'confirmCheckoutSession', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/confirm`,
        key: pk,
        clientSecret: s.clientSecret,
        body: { paymentMethodId: token.json.paymentMethodId },
      });
      expectStatus(paid, 200, 'confirm with the click-to-pay token');
      assert.equal(paid.json.paymentStatus, 'paid');
    },
  },
];
