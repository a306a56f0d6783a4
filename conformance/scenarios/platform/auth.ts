// Authentication: no key or an unknown one, server and publishable keys, what a publishable key may do,
// and the client secret. Which key may call what, another merchant's objects and the modes are in
// auth-scopes.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectEnvelopeError, expectError, expectStatus } from '../fixtures/http.js';
import { otherSecretKey, publishableKey, secretKey, tag } from '../fixtures/keys.js';
import { SESSION } from '../fixtures/operations.js';
import { AUTH } from '../fixtures/sections.js';
import { getSession, getSessionStatus, newSession } from '../fixtures/sessions.js';

export const auth: Scenario[] = [
  {
    id: 'platform.auth.no-key-401',
    title: 'A request without a key is refused with 401 authentication (general shape, or the envelope on plan/customer endpoints)',
    source: AUTH,
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: false,
    async run(ctx) {
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: null }), 401, 'authentication');
      expectEnvelopeError(await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: null }), 401, 'authentication');
      expectEnvelopeError(await call(ctx, 'checkout', 'listCustomers', { method: 'GET', path: '/v1/customers', key: null }), 401, 'authentication');
    },
  },
  {
    id: 'platform.auth.unknown-key-401',
    title: 'An unknown, revoked or malformed key is refused with 401 authentication',
    source: AUTH,
    requires: ['listProducts', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const unknown = `sk_test_conformance${tag(ctx)}unknown`;
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: unknown }), 401, 'authentication');
      expectEnvelopeError(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: '/v1/plans/1', key: unknown }), 401, 'authentication');
      const notBearer = await call(ctx, 'checkout', 'listProducts', {
        method: 'GET',
        path: '/v1/products',
        key: null,
        headers: { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      });
      expectError(notBearer, 401, 'authentication');
    },
  },
  {
    id: 'platform.auth.secret-key-bearer',
    title: 'A server key sent as `Authorization: Bearer sk_...` has full access (test keys start `sk_test_`)',
    source: AUTH,
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      assert.match(secretKey(ctx), /^sk_(test|live)_/, 'the server key must start sk_test_ or sk_live_');
      for (const [op, path] of [
        ['listProducts', '/v1/products'],
        ['listPlans', '/v1/plans'],
        ['listCustomers', '/v1/customers'],
      ] as const) {
        const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: secretKey(ctx), query: { limit: 1 } });
        expectStatus(res, 200, `${op} with the server key`);
      }
    },
  },
  {
    id: 'platform.auth.publishable-needs-client-secret',
    title: "A publishable key without `X-Client-Secret` is refused with 401 (every publishable-key request needs the session's client secret)",
    source: AUTH,
    requires: ['listProducts'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: pk }), 401, 'authentication');
    },
  },
  {
    id: 'platform.auth.publishable-one-session-only',
    title: "A publishable key acts on one session only: the client secret of another session (or another merchant's, or the other mode's) is refused with 401",
    source: AUTH,
    requires: [SESSION, 'retrieveCheckoutSession', 'getCheckoutSessionStatus'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const a = await newSession(ctx);
      const b = await newSession(ctx);
      // The right pair works, so the refusals below are about the secret.
      expectStatus(
        await getSession(ctx, a.id, { key: pk, clientSecret: a.clientSecret }),
        200,
        "retrieve with the publishable key and the session's own client secret",
      );
      expectStatus(
        await getSessionStatus(ctx, a.id, { key: pk, clientSecret: a.clientSecret }),
        200,
        "poll with the publishable key and the session's own client secret",
      );
      // Another session's client secret.
      expectError(await getSession(ctx, a.id, { key: pk, clientSecret: b.clientSecret }), 401, 'authentication');
      expectError(await getSessionStatus(ctx, a.id, { key: pk, clientSecret: b.clientSecret }), 401, 'authentication');
      // A made-up secret in the right shape.
      expectError(await getSession(ctx, a.id, { key: pk, clientSecret: `${a.id}_secret_conformance${tag(ctx)}` }), 401, 'authentication');
      // Another merchant's session, with its own client secret, under this merchant's publishable key.
      const theirs = await newSession(ctx, {}, await otherSecretKey(ctx));
      expectError(await getSession(ctx, theirs.id, { key: pk, clientSecret: theirs.clientSecret }), 401, 'authentication');
      expectError(await getSessionStatus(ctx, theirs.id, { key: pk, clientSecret: theirs.clientSecret }), 401, 'authentication');
      expectError(await getSession(ctx, a.id, { key: pk, clientSecret: theirs.clientSecret }), 401, 'authentication');
      // The other mode's sessions need a live key, which the options do not carry.
    },
  },
  {
    id: 'platform.auth.client-secret-shape',
    title: 'The client secret returned at session creation has the shape `<session_id>_secret_<random>`',
    source: AUTH,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const first = await newSession(ctx);
      const second = await newSession(ctx);
      for (const s of [first, second]) {
        assert.equal(typeof s.clientSecret, 'string', 'clientSecret must be a string');
        const prefix = `${s.id}_secret_`;
        assert.ok(s.clientSecret.startsWith(prefix), `clientSecret must start with "${prefix}", got ${JSON.stringify(s.clientSecret)}`);
        assert.match(s.clientSecret.slice(prefix.length), /^\S+$/, 'the random part must be present');
      }
      assert.notEqual(
        first.clientSecret.slice(`${first.id}_secret_`.length),
        second.clientSecret.slice(`${second.id}_secret_`.length),
        'the random part differs between sessions',
      );
    },
  },
];
