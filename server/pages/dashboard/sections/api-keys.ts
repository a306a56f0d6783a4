// API keys: the merchant's roles with their scopes, and each role's restricted keys in this mode
// (display prefix only, created, revoked); create a role, create a key of a role (its text shown
// once, on the page the POST redirects to, sealed in a short-lived cookie only this session can
// open and cleared as it is shown: never stored by the server or put in an address), revoke a key, delete a
// role. Every action calls the service the API's operation calls, with the signed-in key's grants
// (a restricted key cannot hand on more than it holds) and the session's audit trail.
import type { Request, Response } from 'express';
import { createRestrictedKey, createRole, getRole, type Grants, revokeRestrictedKey } from '../../../domain/merchants/identity.service.js';
import { deleteRole, pageRoleKeys, pageRoles, type RestrictedKeyRecord } from '../../../domain/merchants/key-admin.service.js';
import type { Role } from '../../../domain/merchants/identity.tables.js';
import { keyDisplayPrefix } from '../../../domain/merchants/keys.js';
import { SCOPES, SECRET_KEY_ONLY_SCOPES } from '../../../domain/merchants/scopes.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { runAction } from '../kit/action.js';
import { openReveal, sealForReveal } from '../kit/reveal.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { csrfField, field, type Flash, flashBox, postButton } from '../kit/form.js';
import { afterNumber, numericId } from '../kit/keyset.js';
import { nextLink } from '../kit/forward-pager.js';
import { type Column, cursorOf, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type DashboardSection, sectionHref } from '../section.js';

const DONE: Record<string, string> = {
  role_created: 'The role was created.',
  revoked: 'The key was revoked: the API refuses it from now on.',
  role_deleted: 'The role was deleted.',
};

const grantsOf = (ctx: DashboardContext): Grants => (ctx.key.kind === 'secret' ? null : { roleName: ctx.key.roleName ?? '', scopes: ctx.key.scopes ?? [] });
const formText = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.slice(0, 200) : '';
};
const formList = (req: Request, name: string): string[] => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
};
function roleIdOf(req: Request): number {
  const id = numericId(String(req.params.id));
  if (id === undefined) throw new AppError('resource_not_found', { message: 'There is no such role.' });
  return id;
}

const ROLE_COLUMNS: Column<Role>[] = [
  { heading: 'Role', cell: (r) => html`<a href="${sectionHref('api-keys', `/roles/${r.id}`)}">${r.name}</a>` },
  { heading: 'Scopes', cell: (r) => r.scopes.join(', ') },
  { heading: 'Created', cell: (r) => formatDate(r.created_at) },
];

function roleForm(ctx: DashboardContext, flash: Flash): SafeHtml {
  const boxes = SCOPES.filter((s) => !SECRET_KEY_ONLY_SCOPES.has(s.name) && ctx.can(s.name)).map(
    (s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s.name}"> <code>${s.name}</code> ${s.description}</label>`,
  );
  return section(
    'Create a role',
    html`${flashBox(flash)}<form method="post" action="${sectionHref('api-keys', '/roles')}">${csrfField(ctx)}${field('Name', 'name', { required: true })}${field('Description', 'description')}
<fieldset class="scopes"><legend>Scopes</legend>${boxes}</fieldset><button type="submit" class="button primary">Create the role</button></form>`,
    'create-role',
  );
}

async function sendRolesPage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const roles = await pageRoles(ctx.db, ctx.tenant.merchantId, { limit: cursorOf(req).limit, startingAfter: afterNumber(req) });
  const done = DONE[queryText(req, 'done') ?? ''];
  const body = html`<h1>API keys</h1>${flashBox({ notice: done })}<p>Roles are shared by both modes; each restricted key carries one role and works in one mode. Your secret key holds every scope.</p>
${table('Roles', ROLE_COLUMNS, roles.data, 'No roles yet.')}${nextLink(req, sectionHref('api-keys'), roles.hasMore, roles.data.at(-1)?.id)}${ctx.can('role.create') ? roleForm(ctx, flash) : html``}`;
  sendDashboardPage(res, ctx, { title: 'API keys', body, section: 'api-keys', status });
}

const keyColumns = (ctx: DashboardContext, role: Role): Column<RestrictedKeyRecord>[] => [
  { heading: 'Key', cell: (k) => html`<code>${k.key_prefix}…</code>` },
  { heading: 'Description', cell: (k) => k.description ?? '—' },
  { heading: 'Created', cell: (k) => formatDate(k.created_at) },
  { heading: 'Status', cell: (k) => (k.revoked_at ? html`${badge('revoked')} ${formatDate(k.revoked_at)}` : badge('active')) },
  {
    heading: 'Action',
    cell: (k) =>
      !k.revoked_at && ctx.can('key.delete') ? postButton(ctx, sectionHref('api-keys', `/roles/${role.id}/keys/${k.id}/revoke`), 'Revoke', {}, 'danger') : '—',
  },
];

async function sendRolePage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const role = await getRole(ctx.db, ctx.tenant.merchantId, roleIdOf(req));
  const base = sectionHref('api-keys', `/roles/${role.id}`);
  const keys = ctx.can('key.read')
    ? await pageRoleKeys(ctx.db, ctx.tenant, role.id, { limit: cursorOf(req).limit, startingAfter: afterNumber(req) })
    : undefined;
  const mode = ctx.tenant.livemode ? 'live' : 'test';
  const create = ctx.can('key.create')
    ? section(
        'Create a key',
        html`<form method="post" action="${`${base}/keys`}">${csrfField(ctx)}${field('Description', 'description')}<button type="submit" class="button primary">Create a ${mode} key</button></form>`,
        'create-key',
      )
    : html``;
  const remove = ctx.can('role.delete') ? section('Delete', postButton(ctx, `${base}/delete`, 'Delete the role', {}, 'danger'), 'delete') : html``;
  const body = html`<p class="crumbs"><a href="${sectionHref('api-keys')}">API keys</a></p><h1>Role ${role.name}</h1>${flashBox({ notice: DONE[queryText(req, 'done') ?? ''], ...flash })}
${section(
  'Details',
  fieldList([
    ['Description', role.description],
    ['Scopes', role.scopes.join(', ')],
    ['Role id', String(role.id)],
    ['Created', formatDate(role.created_at)],
  ]),
  'details',
)}
${keys ? section(`Restricted keys (${mode} mode)`, html`${table('Restricted keys', keyColumns(ctx, role), keys.data, 'No keys of this role in this mode.')}${nextLink(req, base, keys.hasMore, keys.data.at(-1)?.id)}`, 'keys') : html``}${create}${remove}`;
  sendDashboardPage(res, ctx, { title: `Role ${role.name}`, body, section: 'api-keys', status });
}

/** Where a new key is shown, once: the answer to "create a key" redirects there (post/redirect/get). */
const newKeyPath = (roleId: number) => sectionHref('api-keys', `/roles/${roleId}/keys/new`);

/** Creates a key, seals its text for the page that shows it once, and redirects there: a refresh makes no second key. */
async function createKey(req: Request, res: Response, ctx: DashboardContext): Promise<void> {
  const roleId = roleIdOf(req);
  let made;
  try {
    made = await createRestrictedKey(ctx.db, ctx.clock, ctx.tenant, roleId, formText(req, 'description') || undefined, grantsOf(ctx), ctx.audit);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500 || err.code === 'resource_not_found') throw err;
    return sendRolePage(req, res, ctx, { alert: err.message }, err.status);
  }
  sealForReveal(req, res, ctx, newKeyPath(roleId), made.key);
  res.redirect(303, newKeyPath(roleId));
}

/** The new key's text, this once (the page is no-store; the sealed cookie is cleared in this answer), or that it was shown already. */
async function sendNewKeyPage(req: Request, res: Response, ctx: DashboardContext): Promise<void> {
  const role = await getRole(ctx.db, ctx.tenant.merchantId, roleIdOf(req));
  const key = openReveal(req, res, ctx, newKeyPath(role.id));
  const crumbs = html`<p class="crumbs"><a href="${sectionHref('api-keys', `/roles/${role.id}`)}">Role ${role.name}</a></p>`;
  if (key === undefined) {
    const body = html`${crumbs}<h1>Key already shown</h1><p id="error-message">A new key is shown only once, right after it is made. If you did not copy it, revoke it on the role's page and create another.</p>`;
    return sendDashboardPage(res, ctx, { title: 'Key already shown', body, section: 'api-keys', status: 410 });
  }
  const body = html`${crumbs}<h1>Your new key</h1>
<p class="notice" role="status">Copy the key now: it is shown this once and cannot be shown again.</p>
<pre class="json" id="new-key" tabindex="0">${key}</pre>${fieldList([
    ['Role', role.name],
    ['Prefix', `${keyDisplayPrefix(key)}…`],
  ])}`;
  sendDashboardPage(res, ctx, { title: 'Your new key', body, section: 'api-keys' });
}

export const apiKeysSection: DashboardSection = {
  path: 'api-keys',
  label: 'API keys',
  scopes: ['role.read'],
  routes(r) {
    r.get('/', (req, res, ctx) => sendRolesPage(req, res, ctx));
    r.post('/roles', ['role.create'], (req, res, ctx) => {
      const input = { name: formText(req, 'name'), description: formText(req, 'description') || undefined, scopes: formList(req, 'scopes') };
      return runAction(
        res,
        sectionHref('api-keys'),
        'role_created',
        () => createRole(ctx.db, ctx.clock, ctx.tenant.merchantId, input, grantsOf(ctx), ctx.audit),
        (flash, status) => sendRolesPage(req, res, ctx, flash, status),
      );
    });
    r.get('/roles/:id', (req, res, ctx) => sendRolePage(req, res, ctx));
    r.post('/roles/:id/keys', ['key.create'], createKey);
    r.get('/roles/:id/keys/new', (req, res, ctx) => sendNewKeyPage(req, res, ctx));
    r.post('/roles/:id/keys/:keyId/revoke', ['key.delete'], (req, res, ctx) => {
      const roleId = roleIdOf(req);
      const keyId = numericId(String(req.params.keyId)) ?? 0;
      return runAction(
        res,
        sectionHref('api-keys', `/roles/${roleId}`),
        'revoked',
        () => revokeRestrictedKey(ctx.db, ctx.clock, ctx.tenant, roleId, keyId, ctx.audit),
        (flash, status) => sendRolePage(req, res, ctx, flash, status),
      );
    });
    r.post('/roles/:id/delete', ['role.delete'], (req, res, ctx) => {
      const roleId = roleIdOf(req);
      return runAction(
        res,
        sectionHref('api-keys'),
        'role_deleted',
        () => deleteRole(ctx.db, ctx.tenant.merchantId, roleId, ctx.audit),
        (flash, status) => sendRolePage(req, res, ctx, flash, status),
      );
    });
  },
};
