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
      expectError(await call(ctx, 'commerce', 'deleteRole', { method: 'DELETE', path: '/v1/role/2147483647', apiKey: sk }), 404, 'not_found');
      expectStatus(await call(ctx, 'commerce', 'deleteRole', { method: 'DELETE', path: `/v1/role/${roleId}`, apiKey: sk }), 204, 'delete the role');
      const page = await auditEntries(ctx, { limit: 100 });
      expectStatus(page, 200, 'the audit log');
      // Other checks may share the merchant: only this check's targets are looked at.
      const ours = page.json.data.filter(
        (e: any) => (e.target.type === 'role' && e.target.id === String(roleId)) || (e.target.type === 'restricted_key' && e.target.id === String(key.json.id)),
      );
      assert.deepEqual(
        ours.map((e: any) => e.action),
        ['role.deleted', 'restricted_key.revoked', 'restricted_key.created', 'role.created'],
        'one entry per change, newest first',
      );
      assert.ok(!page.json.data.some((e: any) => e.target.id === '2147483647'), 'the refused delete wrote nothing');
      for (const entry of ours) assert.deepEqual(entry.actor, { type: 'api_key', keyPrefix: prefixOf(sk), session: null }, 'the actor');
      assert.deepEqual(ours[2].changes.keyPrefix, { before: null, after: key.json.keyPrefix }, "the new key's prefix");
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
      const page = await auditEntries(ctx, { action: 'webhook_configuration.*', limit: 100 });
      expectStatus(page, 200, 'the audit log');
      const ours = page.json.data.filter((e: any) => e.target.id === String(id));
      assert.ok(
        page.json.data.every((e: any) => e.action.startsWith('webhook_configuration.')),
        'the action filter',
      );
      assert.deepEqual(
        ours.map((e: any) => e.action),
        ['webhook_configuration.deleted', 'webhook_configuration.updated', 'webhook_configuration.created'],
      );
      assert.deepEqual(ours[1].changes, {
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
      const keyOf = async (roleId: number) =>
        (await call(ctx, 'commerce', 'createRestrictedKey', { method: 'POST', path: `/v1/role/${roleId}/keys`, apiKey: sk, body: {} })).json.key as string;
      // A key of this check's own: its entries are this check's, whoever else shares the merchant.
      const admin = await keyOf(await newRole(ctx, 'Conf audit admin', ['role.create', 'auditentry.read']));
      const roleBy = async (name: string) => {
        const res = await call(ctx, 'commerce', 'createRole', {
          method: 'POST',
          path: '/v1/role',
          apiKey: admin,
          body: { name: `${name} ${tag(ctx)}`.slice(0, 100), scopes: ['auditentry.read'] },
        });
        expectStatus(res, 201, 'a role made by the check key');
        return res.json.id as number;
      };
      const [older, newer] = [await roleBy('Conf audit one'), await roleBy('Conf audit two')];
      const actor = prefixOf(admin);
      const first = await auditEntries(ctx, { actor, limit: 1 }, admin);
      expectStatus(first, 200, 'page 1 (a restricted key with auditentry.read)');
      assert.equal(first.json.hasMore, true, 'hasMore');
      assert.equal(first.json.data[0].target.id, String(newer), 'newest first');
      const next = await auditEntries(ctx, { actor, limit: 1, startingAfter: first.json.data[0].id }, admin);
      assert.deepEqual([next.json.data.map((e: any) => e.target.id), next.json.hasMore], [[String(older)], false], 'the next page');
      assert.equal((await auditEntries(ctx, { actor, action: 'role.deleted' })).json.data.length, 0, 'action filter');
      assert.equal((await auditEntries(ctx, { actor, action: 'role.*' })).json.data.length, 2, 'action family filter');
      assert.equal((await auditEntries(ctx, { actor, actorType: 'dashboard' })).json.data.length, 0, 'actorType filter');
      assert.equal((await auditEntries(ctx, { actor, createdBefore: '2000-01-01T00:00:00Z' })).json.data.length, 0, 'date filter');
      const filter = `actorKeyPrefix eq '${actor}'`;
      const odata = await call(ctx, 'commerce', 'listAuditLog', {
        method: 'GET',
        path: '/v1/auditEntry',
        apiKey: admin,
        query: { $filter: filter, $count: true },
      });
      expectStatus(odata, 200, 'the Commerce list');
      assert.deepEqual(
        [odata.json['@odata.count'], odata.json.value.map((e: any) => e.id)],
        [2, [first.json.data[0].id, next.json.data[0].id]],
        'the same entries on Commerce',
      );
      expectError(await auditEntries(ctx, {}, await keyOf(await newRole(ctx, 'Conf no audit'))), 403, 'permission_denied');
    },
    { ownMerchant: true },
  ),
];
