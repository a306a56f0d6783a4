// `POST /v1/client-token`: always 501, whoever calls.
import assert from 'node:assert/strict';
import type { RequestSpec, Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { AUTH, SESSION_ENDPOINTS } from '../fixtures/sections.js';

export const clientToken: Scenario[] = [
  {
    id: 'platform.client-token.always-501',
    title: "`POST /v1/client-token` always answers 501, whoever calls and whatever is sent (use the publishable key with the session's client secret)",
    source: SESSION_ENDPOINTS,
    requires: ['createClientToken'],
    serverOnly: false,
    async run(ctx) {
      const specs: Pick<RequestSpec, 'key' | 'body'>[] = [{ key: null }, { key: secretKey(ctx) }];
      // A body on an operation that declares none is refused by a mock (415); the server ignores it.
      if (ctx.options.target === 'server') specs.push({ key: secretKey(ctx), body: { sessionId: 'cs_test_conformance' } });
      for (const spec of specs) {
        const res = await call(ctx, 'checkout', 'createClientToken', { method: 'POST', path: '/v1/client-token', ...spec });
        expectStatus(res, 501, 'POST /v1/client-token');
        assert.ok(res.json?.error, `501 answers the general error body: ${res.text.slice(0, 200)}`);
      }
    },
  },
  {
    id: 'platform.client-token.scope-unavailable',
    title: 'The `client_token.generate` scope is not available to any key: even the server key gets 501',
    source: AUTH,
    requires: ['createClientToken'],
    serverOnly: true,
    async run(ctx) {
      const res = await call(ctx, 'checkout', 'createClientToken', { method: 'POST', path: '/v1/client-token', key: secretKey(ctx) });
      expectStatus(res, 501, 'POST /v1/client-token with the server key');
    },
  },
];
