// The request log (Till's design, issue 34): every API request made with the merchant's keys is
// listed and retrievable on both interfaces, with card numbers, security codes and keys removed
// from its bodies; filters narrow the list; another merchant, or a restricted key without
// `requestlog.read`, sees none of it; a request refused at authentication is not recorded.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { otherSecretKey, publishableKey, secretKey, tag } from '../fixtures/keys.js';
import { scenario } from '../fixtures/scenario.js';
import { newSession, SANDBOX_CARD } from '../fixtures/sessions.js';
import { waitFor } from '../fixtures/wait.js';

const REQUEST_LOGS = "Till's design › Request logs (issue 34)";
const LIST = 'listRequestLogs';

const listLogs = (ctx: ConformanceContext, query: Record<string, string | number>, key = secretKey(ctx)) =>
  call(ctx, 'checkout', LIST, { method: 'GET', path: '/v1/request-logs', key, query });

/** The log of the request answered by `res`, once it is written (logs are written in batches). */
async function logOf(ctx: ConformanceContext, res: HttpResult): Promise<any> {
  const requestId = res.headers.get('x-request-id');
  assert.ok(requestId, 'the answer carries X-Request-Id');
  return waitFor(`the request log of ${requestId}`, async () => {
    const page = await listLogs(ctx, { requestId });
    expectStatus(page, 200, 'list the request logs');
    return page.json.data[0];
  });
}

const events = (ctx: ConformanceContext, key = secretKey(ctx)) =>
  call(ctx, 'checkout', 'listEvents', { method: 'GET', path: '/v1/events', key, query: { limit: 1 } });

export const requestLogs = [
  scenario(
    'platform.request-logs.recorded',
    'A request made with the secret key is listed with its method, path, operation, status, request id, key prefix and answer, and is retrievable by id on both interfaces',
    REQUEST_LOGS,
    [LIST, 'retrieveRequestLog', 'getCommerceRequestLog', 'listEvents'],
    async (ctx) => {
      const res = await events(ctx);
      expectStatus(res, 200, 'list events');
      const log = await logOf(ctx, res);
      assert.equal(log.method, 'GET');
      assert.equal(log.path, '/v1/events');
      assert.equal(log.operationId, 'listEvents');
      assert.equal(log.status, 200);
      assert.equal(log.keyPrefix, secretKey(ctx).slice(0, 12), 'the key prefix, never the key');
      assert.deepEqual(log.responseBody, res.json, 'the answer as it was sent');
      const one = await call(ctx, 'checkout', 'retrieveRequestLog', { method: 'GET', path: `/v1/request-logs/${log.id}`, key: secretKey(ctx) });
      expectStatus(one, 200, 'retrieve the log');
      assert.deepEqual(one.json, log);
      const commerce = await call(ctx, 'commerce', 'getCommerceRequestLog', { method: 'GET', path: `/v1/RequestLog/${log.id}`, apiKey: secretKey(ctx) });
      expectStatus(commerce, 200, 'the same log on the Commerce interface');
      assert.equal(commerce.json.statusCode, 200);
      assert.equal(commerce.json.requestId, log.requestId);
    },
  ),
  scenario(
    'platform.request-logs.redacted',
    'Card numbers, security codes and keys sent in a request body are removed from its log',
    REQUEST_LOGS,
    [LIST, 'createCheckoutSession', 'tokenizeCard', 'createCustomer'],
    async (ctx) => {
      const session = await newSession(ctx);
      const tokenized = await call(ctx, 'checkout', 'tokenizeCard', {
        method: 'POST',
        path: `/v1/checkout-sessions/${session.id}/tokenize`,
        key: publishableKey(ctx),
        clientSecret: session.clientSecret,
        body: SANDBOX_CARD,
      });
      assert.ok(tokenized.status < 300, `tokenize: ${tokenized.status}`);
      const logged = await logOf(ctx, tokenized);
      assert.equal(logged.requestBody.cardNumber, '[redacted]');
      assert.equal(logged.requestBody.cvc, '[redacted]');
      // A key in an unexpected field of a refused request: removed by its shape.
      const refused = await call(ctx, 'checkout', 'createCustomer', {
        method: 'POST',
        path: '/v1/customers',
        key: secretKey(ctx),
        body: { email: `conf.${tag(ctx)}.logs@example.com`, leaked: secretKey(ctx) },
      });
      expectStatus(refused, 400, 'an unknown field');
      const text = JSON.stringify(await logOf(ctx, refused));
      assert.ok(!text.includes(secretKey(ctx)), 'the key is not in the log');
      assert.ok(!JSON.stringify(logged).includes(SANDBOX_CARD.cardNumber), 'the card number is not in the log');
    },
  ),
  scenario(
    'platform.request-logs.filters',
    'The list filters by status, operation, request id and date range',
    REQUEST_LOGS,
    [LIST, 'listEvents', 'listPlans'],
    async (ctx) => {
      const from = new Date(Date.now() - 60_000).toISOString();
      const plans = await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: secretKey(ctx), query: { limit: 1 } });
      const log = await logOf(ctx, plans);
      const ids = async (query: Record<string, string | number>) => {
        const page = await listLogs(ctx, { limit: 100, ...query });
        expectStatus(page, 200, `list with ${JSON.stringify(query)}`);
        return (page.json.data as any[]).map((l) => l.id as string);
      };
      assert.ok((await ids({ operationId: 'listPlans', createdFrom: from })).includes(log.id), 'by operation and start');
      assert.ok(!(await ids({ operationId: 'listEvents' })).includes(log.id), 'another operation leaves it out');
      assert.ok(!(await ids({ status: 404 })).includes(log.id), 'another status leaves it out');
      assert.ok(!(await ids({ createdTo: from })).includes(log.id), 'an earlier range leaves it out');
    },
  ),
  scenario(
    'platform.request-logs.other-merchant-404',
    "Another merchant's key answers 404 for a request log and never lists it",
    REQUEST_LOGS,
    [LIST, 'retrieveRequestLog', 'listEvents'],
    async (ctx) => {
      const log = await logOf(ctx, await events(ctx));
      const other = await otherSecretKey(ctx);
      expectError(
        await call(ctx, 'checkout', 'retrieveRequestLog', { method: 'GET', path: `/v1/request-logs/${log.id}`, key: other }),
        404,
        'not_found',
        'resource_not_found',
      );
      const theirs = await listLogs(ctx, { requestId: log.requestId }, other);
      expectStatus(theirs, 200, "the other merchant's list");
      assert.deepEqual(theirs.json.data, [], 'not in their list');
    },
  ),
  scenario(
    'platform.request-logs.scope-and-unauthenticated',
    'A restricted key without `requestlog.read` is refused 403; a request refused at authentication is not recorded',
    REQUEST_LOGS,
    [LIST, 'listCommerceRequestLogs', 'createRole', 'createRestrictedKey', 'listEvents'],
    async (ctx) => {
      const name = `Conf logs ${tag(ctx)} ${Math.random().toString(36).slice(2, 8)}`.slice(0, 100);
      const role = await call(ctx, 'commerce', 'createRole', {
        method: 'POST',
        path: '/v1/role',
        apiKey: secretKey(ctx),
        body: { name, scopes: ['invoice.read'] },
      });
      expectStatus(role, 201, 'a role without requestlog.read');
      const key = await call(ctx, 'commerce', 'createRestrictedKey', {
        method: 'POST',
        path: `/v1/role/${role.json.id}/keys`,
        apiKey: secretKey(ctx),
        body: {},
      });
      expectStatus(key, 201, 'its key');
      expectError(await listLogs(ctx, {}, key.json.key), 403, 'permission_denied', 'permission_denied');
      expectError(
        await call(ctx, 'commerce', 'listCommerceRequestLogs', { method: 'GET', path: '/v1/RequestLog', apiKey: key.json.key }),
        403,
        'permission_denied',
        'permission_denied',
      );
      const refused = await events(ctx, `${secretKey(ctx).slice(0, 8)}NotAKey${'x'.repeat(24)}`);
      expectError(refused, 401, 'authentication');
      const later = await logOf(ctx, await events(ctx));
      const found = await listLogs(ctx, {
        requestId: refused.headers.get('x-request-id')!,
        createdFrom: new Date(Date.parse(later.createdAt) - 60_000).toISOString(),
      });
      assert.deepEqual(found.json.data, [], 'the refused request is not recorded');
    },
  ),
];
