// The API keys and audit log sections over HTTP: roles and keys made through the API show; a role
// and a key made from the page work on the API (the key shown once, on the page the POST redirects to); a
// key revoked from the page is refused (401); the audit log shows these changes with the dashboard
// session as actor; a key without the scopes is refused pages and actions (403); no escalation.
import { expect, it } from 'vitest';
import { csrfOf, DashboardClient, restrictedKey } from '../support/dashboard.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

async function apiRole(apiKey: string, name: string, scopes: string[]): Promise<number> {
  const role = await t.call('POST', '/v1/role', { apiKey, body: { name, scopes } });
  expect(role.status, role.text).toBe(201);
  return role.json.id as number;
}

it('API keys: shows the API’s roles and keys; a role and a key made from the page work; revoked from the page, the key is refused', async () => {
  const m = await t.newMerchant('Dash keys');
  const secret = m.keys.test.secret;
  const apiRoleId = await apiRole(secret, 'Reporting', ['payment.read']);
  const apiKey = await t.call('POST', `/v1/role/${apiRoleId}/keys`, { apiKey: secret, body: { description: 'from the API' } });
  const c = new DashboardClient(t.url);
  expect((await c.signIn(secret)).status).toBe(303);
  const list = await c.get('/dashboard/api-keys');
  expect(list.status).toBe(200);
  expect(list.html).toContain('Reporting');
  const rolePage = await c.get(`/dashboard/api-keys/roles/${apiRoleId}`);
  expect(rolePage.html).toContain(`${apiKey.json.keyPrefix as string}…`);
  expect(rolePage.html).not.toContain(apiKey.json.key as string);

  const made = await c.submit('/dashboard/api-keys', '/dashboard/api-keys/roles', { name: 'Page role', scopes: 'role.read' });
  expect(made.status, made.html).toBe(303);
  const roles = await t.call('GET', '/v1/role', { apiKey: secret });
  const pageRole = (roles.json.value as { id: number; name: string; scopes: string[] }[]).find((r) => r.name === 'Page role')!;
  expect(pageRole.scopes).toEqual(['role.read']);

  const rolePath = `/dashboard/api-keys/roles/${pageRole.id}`;
  // Post/redirect/get: the POST's answer redirects; the page it names shows the key once, and a refresh neither shows it nor makes another.
  const created = await c.submit(rolePath, `${rolePath}/keys`, { description: 'page key' });
  expect(created.status).toBe(303);
  expect(created.headers.get('location')).toBe(`${rolePath}/keys/new`);
  expect(created.html).not.toMatch(/rk_test_/);
  const shown = await c.get(`${rolePath}/keys/new`);
  expect(shown.status).toBe(200);
  expect(shown.headers.get('cache-control')).toBe('no-store');
  const key = /rk_test_[A-Za-z0-9]+/.exec(shown.html)![0];
  expect(shown.html.split(key)).toHaveLength(2);
  expect(c.cookie('till_dashboard_reveal')).toBeUndefined();
  const refreshed = await c.get(`${rolePath}/keys/new`);
  expect(refreshed.status).toBe(410);
  expect(refreshed.html).not.toMatch(/rk_test_[A-Za-z0-9]{8}/);
  const pageKeys = await t.call('GET', `/v1/role/${pageRole.id}/keys`, { apiKey: secret });
  expect(pageKeys.json.value).toHaveLength(1);
  expect((await t.call('GET', '/v1/role', { apiKey: key })).status).toBe(200);
  for (const path of ['/dashboard/api-keys', rolePath, '/dashboard/audit-log']) expect((await c.get(path)).html).not.toContain(key);

  const keyId = /\/keys\/([0-9]+)\/revoke/.exec((await c.get(rolePath)).html)![1]!;
  const revoked = await c.submit(rolePath, `${rolePath}/keys/${keyId}/revoke`);
  expect(revoked.status).toBe(303);
  expect((await t.call('GET', '/v1/role', { apiKey: key })).status).toBe(401);
  expect((await c.get(`${rolePath}?done=revoked`)).html).toContain('revoked');
  expect((await c.submit(rolePath, `${rolePath}/delete`)).status).toBe(303);
  expect((await t.call('GET', `/v1/role/${pageRole.id}`, { apiKey: secret })).status).toBe(404);

  // The audit log: the four changes, by this dashboard session; the API's, by the key's prefix.
  const audit = await c.get('/dashboard/audit-log?actorType=dashboard');
  expect(audit.status).toBe(200);
  for (const action of ['role.created', 'restricted_key.created', 'restricted_key.revoked', 'role.deleted']) expect(audit.html).toContain(action);
  expect(audit.html).toMatch(/Dashboard session <code>ds_[0-9a-f]{16}<\/code>/);
  expect(audit.html).not.toContain('API key <code>');
  const family = await c.get('/dashboard/audit-log?action=restricted_key.*&actorType=api_key');
  expect(family.html).toContain('restricted_key.created');
  expect(family.html).not.toContain('role.created');
  expect(family.html).not.toContain(secret);
  expect((await c.get('/dashboard/audit-log?from=2000-01-01&to=2000-01-02')).html).toContain('No changes match.');

  // Keyset pages, newest first: one a page, "Older" after the last shown.
  await apiRole(secret, 'Later', ['payment.read']);
  const first = await c.get('/dashboard/api-keys?limit=1');
  expect(first.html).toContain('>Later<');
  expect(first.html).not.toContain('>Reporting<');
  const older = await c.get(/rel="next" href="([^"]+)"/.exec(first.html)![1]!.replace(/&#38;/g, '&'));
  expect(older.html).toContain('>Reporting<');
  expect(older.html).not.toContain('>Later<');
  const audit1 = await c.get('/dashboard/audit-log?actorType=dashboard&limit=1');
  expect(audit1.html).toContain('role.deleted');
  const auditNext = /rel="next" href="([^"]+)"/.exec(audit1.html)![1]!.replace(/&#38;/g, '&');
  const audit2 = await c.get(auditNext);
  expect(audit2.html).toContain('restricted_key.revoked');
  expect(audit2.html).not.toContain('role.deleted');
});

it('a key without the scopes is refused the pages and the actions (403); a restricted key cannot escalate', async () => {
  const m = await t.newMerchant('Dash keys access');
  const secret = m.keys.test.secret;
  const roleId = await apiRole(secret, 'Wide', ['payment.read', 'invoice.read']);
  const none = new DashboardClient(t.url);
  expect((await none.signIn(await restrictedKey(t, m, ['payment.read']))).status).toBe(303);
  for (const path of ['/dashboard/api-keys', `/dashboard/api-keys/roles/${roleId}`, '/dashboard/audit-log']) expect((await none.get(path)).status).toBe(403);
  const csrf = csrfOf((await none.get('/dashboard')).html);
  expect((await none.post('/dashboard/api-keys/roles', { csrf, name: 'Sneaky', scopes: 'payment.read' })).status).toBe(403);
  expect((await none.post(`/dashboard/api-keys/roles/${roleId}/keys`, { csrf })).status).toBe(403);

  const admin = new DashboardClient(t.url);
  expect((await admin.signIn(await restrictedKey(t, m, ['role.read', 'role.create', 'key.create', 'payment.read']))).status).toBe(303);
  const page = await admin.get('/dashboard/api-keys');
  expect(page.status).toBe(200);
  expect(page.html).not.toContain('value="invoice.read"');
  const up = await admin.post('/dashboard/api-keys/roles', { csrf: csrfOf(page.html), name: 'Escalated', scopes: 'invoice.read' });
  expect(up.status).toBe(403);
  expect(up.html).toContain('does not have the scope');
  const key = await admin.submit(`/dashboard/api-keys/roles/${roleId}`, `/dashboard/api-keys/roles/${roleId}/keys`);
  expect(key.status).toBe(403);
  expect(key.html).not.toMatch(/rk_test_[A-Za-z0-9]{8}/);
  const roles = (await t.call('GET', '/v1/role', { apiKey: secret })).json.value as { name: string }[];
  expect(roles.map((r) => r.name)).not.toContain('Escalated');
  // Secret-key-only actions (revoke, delete a role) are refused to any restricted key.
  expect((await admin.post(`/dashboard/api-keys/roles/${roleId}/delete`, { csrf: csrfOf(page.html) })).status).toBe(403);
  expect((await admin.get('/dashboard/audit-log')).status).toBe(403);
});
