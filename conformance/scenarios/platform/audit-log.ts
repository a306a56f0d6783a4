// The audit log (issue 34, Till's design): a change to roles, restricted keys or webhook
// configurations writes one entry naming the calling key by its prefix (never the key), the
// target and the changed fields (never a signing secret); a refused change writes none; the
// list is newest first, filtered and paged, the same on both interfaces; a restricted key needs
// `auditentry.read`. Each scenario runs on a sandbox merchant of its own, so the log is its own.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { scenario } from '../fixtures/scenario.js';

const DESIGN = "Till's design › Audit log (docs/observability.md)";
const prefixOf = (key: string) => key.slice(0, key.indexOf('_', 3) + 5);

async function auditEntries(ctx: ConformanceContext, query: Record<string, string | number> = {}, key = secretKey(ctx)): Promise<HttpResult> {
  const res = await call(ctx, 'checkout', 'listAuditEntries', { method: 'GET', path: '/v1/audit-entries', key, query });
  return res;
}
async function newRole(ctx: ConformanceContext, name: string, scopes = ['invoice.read']): Promise<number> {
  const res = await call(ctx, 'commerce', 'createRole', {
    method: 'POST',
    path: '/v1/role',
    apiKey: secretKey(ctx),
    body: { name: `${name} ${tag(ctx)}`.slice(0, 100), scopes },
  });
  expectStatus(res, 201, 'create a role');
  return res.json.id;
}

export const auditLog: Scenario[] = [
  scenario(
    'platform.audit.keys-and-roles',
    'A role created and deleted and a restricted key created and revoked each write one entry naming the calling key by its prefix, the target and the changed fields; the key itself never appears; a refused change writes nothing',
    DESIGN,
    ['createRole', 'createRestrictedKey', 'revokeRestrictedKey', 'deleteRole', 'listAuditEntries'],
    async (ctx) => {
      const sk = secretKey(ctx);
      const roleId = await newRole(ctx, 'Conf audit');
      const key = await call(ctx, 'commerce', 'createRestrictedKey', { method: 'POST', path: `/v1/role/${roleId}/keys`, apiKey: sk, body: {} });
      expectStatus(key, 201, 'create a key');
      expectStatus(
        await call(ctx, 'commerce', 'revokeRestrictedKey', { method: 'DELETE', path: `/v1/role/${roleId}/keys/${key.json.id}`, apiKey: sk }),
        204,
        'revoke',
      );
      const count = (await auditEntries(ctx)).json.data.length;
      expectError(await call(ctx, 'commerce', 'deleteRole', { method: 'DELETE', path: '/v1/role/2147483647', apiKey: sk }), 404, 'not_found');
      expectStatus(await call(ctx, 'commerce', 'deleteRole', { method: 'DELETE', path: `/v1/role/${roleId}`, apiKey: sk }), 204, 'delete the role');
      const page = await auditEntries(ctx);
      expectStatus(page, 200, 'the audit log');
      assert.equal(page.json.data.length, count + 1, 'the refused delete wrote nothing; the delete wrote one entry');
      const actions = page.json.data.map((e: any) => `${e.action} ${e.target.type}:${e.target.id}`);
      assert.deepEqual(actions.slice(0, 4), [
        `role.deleted role:${roleId}`,
        `restricted_key.revoked restricted_key:${key.json.id}`,
        `restricted_key.created restricted_key:${key.json.id}`,
        `role.created role:${roleId}`,
      ]);
      for (const entry of page.json.data.slice(0, 4)) assert.deepEqual(entry.actor, { type: 'api_key', keyPrefix: prefixOf(sk), session: null }, 'the actor');
      assert.deepEqual(page.json.data[2].changes.keyPrefix, { before: null, after: key.json.keyPrefix }, "the new key's prefix");
      assert.ok(!page.text.includes(key.json.key) && !page.text.includes(sk), 'no whole key in the log');
    },
    { ownMerchant: true },
  ),
  scenario(
    'platform.audit.webhook-configurations',
    'A webhook configuration created, updated (disabled, secret rotated) and deleted writes one entry each with the changed fields; a signing secret never appears (`[redacted]`); a refused update writes nothing',
    DESIGN,
    ['createWebhookConfiguration', 'updateWebhookConfiguration', 'deleteWebhookConfiguration', 'listAuditEntries'],
    async (ctx) => {
      const key = secretKey(ctx);
      const made = await call(ctx, 'checkout', 'createWebhookConfiguration', {
        method: 'POST',
        path: '/v1/WebhookConfiguration',
        key,
        body: { sandboxUrl: 'https://hooks.example.org/audit', enabled: false, description: 'conformance audit' },
      });
      expectStatus(made, 201, 'create a configuration');
      const id = made.json.id;
      const path = `/v1/WebhookConfiguration/${id}`;
      const rotated = await call(ctx, 'checkout', 'updateWebhookConfiguration', {
        method: 'PATCH',
        path,
        key,
        body: { description: 'rotated', rotateSandboxSecret: true },
      });
      expectStatus(rotated, 200, 'rotate');
      const refused = await call(ctx, 'checkout', 'updateWebhookConfiguration', { method: 'PATCH', path, key, body: { sandboxUrl: null } });
      expectError(refused, 400, 'invalid_request');
      expectStatus(await call(ctx, 'checkout', 'deleteWebhookConfiguration', { method: 'DELETE', path, key }), 200, 'delete');
      const page = await auditEntries(ctx, { action: 'webhook_configuration.*' });
      expectStatus(page, 200, 'the audit log');
      assert.deepEqual(
        page.json.data.map((e: any) => e.action),
        ['webhook_configuration.deleted', 'webhook_configuration.updated', 'webhook_configuration.created'],
      );
      assert.deepEqual(page.json.data[1].changes, {
        description: { before: 'conformance audit', after: 'rotated' },
        sandboxSecret: { before: '[redacted]', after: '[redacted]' },
      });
      for (const secret of [made.json.sandboxSecret, made.json.liveSecret, rotated.json.sandboxSecret])
        assert.ok(!page.text.includes(secret), 'no signing secret in the log');
    },
    { ownMerchant: true },
  ),
  scenario(
    'platform.audit.list',
    'The log pages newest first (`limit`, `startingAfter`), filters by action, actor and date, is the same on the Commerce interface (`GET /v1/auditEntry`), and a restricted key needs `auditentry.read` (403 without it)',
    DESIGN,
    ['createRole', 'createRestrictedKey', 'listAuditEntries', 'listAuditLog'],
    async (ctx) => {
      const sk = secretKey(ctx);
      const reader = await newRole(ctx, 'Conf auditor', ['auditentry.read']);
      const other = await newRole(ctx, 'Conf other');
      const first = await auditEntries(ctx, { limit: 1 });
      expectStatus(first, 200, 'page 1');
      assert.equal(first.json.hasMore, true, 'hasMore');
      assert.equal(first.json.data[0].target.id, String(other), 'newest first');
      const next = await auditEntries(ctx, { limit: 1, startingAfter: first.json.data[0].id });
      assert.equal(next.json.data[0].target.id, String(reader), 'the next page');
      assert.equal((await auditEntries(ctx, { action: 'role.deleted' })).json.data.length, 0, 'action filter');
      assert.equal((await auditEntries(ctx, { actor: 'sk_test_none' })).json.data.length, 0, 'actor filter');
      assert.ok((await auditEntries(ctx, { actor: prefixOf(sk) })).json.data.length >= 2, 'actor filter: the key');
      assert.equal((await auditEntries(ctx, { createdBefore: '2000-01-01T00:00:00Z' })).json.data.length, 0, 'date filter');
      const odata = await call(ctx, 'commerce', 'listAuditLog', { method: 'GET', path: '/v1/auditEntry', apiKey: sk, query: { $top: 1 } });
      expectStatus(odata, 200, 'the Commerce list');
      assert.equal(odata.json.value[0].id, first.json.data[0].id, 'the same entries');
      const keyOf = async (roleId: number) =>
        (await call(ctx, 'commerce', 'createRestrictedKey', { method: 'POST', path: `/v1/role/${roleId}/keys`, apiKey: sk, body: {} })).json.key as string;
      expectError(await auditEntries(ctx, {}, await keyOf(other)), 403, 'permission_denied');
      expectStatus(await auditEntries(ctx, {}, await keyOf(reader)), 200, 'a key with auditentry.read');
    },
    { ownMerchant: true },
  ),
];
