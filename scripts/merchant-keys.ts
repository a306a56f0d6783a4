// `npm run merchant -- roles …` and `keys …`: list and delete a merchant's roles, list and revoke
// its restricted keys (issue 35 §15), on the database directly, as the API's full secret key would.
// Roles and keys are made through the API (POST /v1/role, POST /v1/role/{id}/keys).
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { AuditTrail } from '../server/db/audit-trail.js';
import type { Database } from '../server/db/schema.js';
import { auditTrail, operatorActor } from '../server/domain/audit/audit.service.js';
import { deleteRole, listMerchantKeys, listMerchantRoles, revokeMerchantKey, type RestrictedKeyRecord } from '../server/domain/merchants/key-admin.service.js';
import type { Role } from '../server/domain/merchants/identity.tables.js';
import { getMerchant } from '../server/domain/merchants/merchant.service.js';
import type { Clock } from '../server/shared/clock.js';
import type { Tenant } from '../server/shared/tenant.js';
import { AppError } from '../server/shared/errors.js';

export const keysUsage = `  roles list --merchant ID [--json]
      Lists the merchant's roles (both modes share them), oldest first.
  roles delete --merchant ID --role ID
      Deletes a role with its revoked keys; refused while an active restricted key carries it.
      Recorded in the merchant's audit log (both modes) as made by the operator.
  keys list --merchant ID [--role ID] [--json]
      Lists the merchant's restricted keys of both modes by prefix (a key's text is shown only once, when it is made).
  keys revoke --merchant ID --key ID
      Revokes a restricted key for good; a running server stops accepting it within 30 seconds.
      Recorded in the merchant's audit log (the key's mode) as made by the operator.`;

/** The lines of `keysUsage` for one group (`roles` or `keys`). */
export const groupUsage = (group: string): string =>
  keysUsage
    .split(/\n(?= {2}\S)/)
    .filter((entry) => entry.startsWith(`  ${group} `))
    .join('\n');

/** A parsed `roles …` or `keys …` call. */
export type KeysCommand =
  | { action: 'roles list'; merchant: number; json: boolean }
  | { action: 'roles delete'; merchant: number; role: number }
  | { action: 'keys list'; merchant: number; role: number | undefined; json: boolean }
  | { action: 'keys revoke'; merchant: number; key: number };

const OPTIONS: Record<string, { ids: string[]; optional?: string[]; json?: boolean }> = {
  'roles list': { ids: ['merchant'], json: true },
  'roles delete': { ids: ['merchant', 'role'] },
  'keys list': { ids: ['merchant'], optional: ['role'], json: true },
  'keys revoke': { ids: ['merchant', 'key'] },
};

/** A positive id, or undefined. */
const idOf = (text: string | undefined): number | undefined =>
  text !== undefined && /^[1-9]\d{0,9}$/.test(text) && Number(text) <= 2147483647 ? Number(text) : undefined;

/** The command of `group` (`roles` or `keys`) and its options, or the message of a bad call. */
export function parseKeysCommand(group: string, rest: string[]): KeysCommand | string {
  const [verb, ...args] = rest;
  const action = `${group} ${verb ?? ''}`;
  const spec = OPTIONS[action];
  if (!spec) return verb ? `Unknown command "${action}".` : `"${group}" needs a command: ${group === 'roles' ? 'list or delete' : 'list or revoke'}.`;
  const names = [...spec.ids, ...(spec.optional ?? [])];
  let values: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries([...names.map((n) => [n, { type: 'string' as const }]), ...(spec.json ? [['json', { type: 'boolean' as const }]] : [])]);
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    return (err as Error).message;
  }
  const parsed: Record<string, number | undefined> = {};
  for (const name of names) {
    const text = values[name] as string | undefined;
    if (text === undefined && spec.ids.includes(name)) return `--${name} is required (the ${name}'s id).`;
    parsed[name] = idOf(text);
    if (text !== undefined && parsed[name] === undefined) return `--${name} must be a positive whole number (an id); got "${text}".`;
  }
  return { action, ...parsed, json: values.json === true } as KeysCommand;
}

const roleLine = (r: Role) => `  ${String(r.id).padEnd(8)}${r.name.padEnd(24)}${r.scopes.join(', ')}`;
const roleJson = (r: Role) => ({ id: r.id, name: r.name, description: r.description, scopes: r.scopes, createdAt: r.created_at.toISOString() });
const keyStatus = (k: RestrictedKeyRecord) => (k.revoked_at ? `revoked ${k.revoked_at.toISOString()}` : 'active');
const keyLine = (k: RestrictedKeyRecord) =>
  `  ${String(k.id).padEnd(8)}${(k.livemode ? 'live' : 'test').padEnd(6)}${k.key_prefix.padEnd(16)}${`${k.role_name} (${k.role_id})`.padEnd(28)}${keyStatus(k).padEnd(34)}${k.description ?? ''}`;
const keyJson = (k: RestrictedKeyRecord) => ({
  id: k.id,
  keyPrefix: k.key_prefix,
  livemode: k.livemode,
  roleId: k.role_id,
  roleName: k.role_name,
  description: k.description,
  createdAt: k.created_at.toISOString(),
  revokedAt: k.revoked_at?.toISOString() ?? null,
});

/** Prints `items` as JSON, or as a table under `header` (or `empty` when there are none). */
function print<T>(items: T[], json: boolean, header: string, empty: string, line: (item: T) => string, asJson: (item: T) => object): void {
  if (json) console.log(JSON.stringify(items.map(asJson)));
  else console.log(items.length === 0 ? empty : [header, ...items.map(line)].join('\n'));
}

/** The audit trail of the operator's change for a tenant (no request made it). */
const operatorTrail = (clock: Clock) => (tenant: Tenant) => auditTrail({ tenant, actor: operatorActor, requestId: null, clock });

/** A role belongs to both modes: its deletion is recorded in each, so either mode's audit log shows it. */
const bothModes =
  (clock: Clock, merchantId: number): AuditTrail =>
  async (db, change) => {
    for (const livemode of [false, true]) await operatorTrail(clock)({ merchantId, livemode })(db, change);
  };

async function run(db: Kysely<Database>, clock: Clock, cmd: KeysCommand): Promise<void> {
  switch (cmd.action) {
    case 'roles list':
      return print(await listMerchantRoles(db, cmd.merchant), cmd.json, `  ${'id'.padEnd(8)}${'name'.padEnd(24)}scopes`, 'No roles.', roleLine, roleJson);
    case 'roles delete': {
      const role = await deleteRole(db, cmd.merchant, cmd.role, bothModes(clock, cmd.merchant));
      return console.log(`Deleted role ${role.id} (${role.name}) of merchant ${cmd.merchant}.`);
    }
    case 'keys list': {
      const header = `  ${'id'.padEnd(8)}${'mode'.padEnd(6)}${'prefix'.padEnd(16)}${'role'.padEnd(28)}${'status'.padEnd(34)}description`;
      return print(await listMerchantKeys(db, cmd.merchant, cmd.role), cmd.json, header, 'No restricted keys.', keyLine, keyJson);
    }
    case 'keys revoke': {
      const key = await revokeMerchantKey(db, clock, cmd.merchant, cmd.key, operatorTrail(clock));
      return console.log(
        `Revoked restricted key ${key.id} (${key.key_prefix}…, role ${key.role_name}) of merchant ${cmd.merchant}. A running server stops accepting it within 30 seconds.`,
      );
    }
  }
}

/** Runs a parsed command; a refusal (unknown merchant, role or key; a role in use) prints why and answers 1. */
export async function runKeysCommand(db: Kysely<Database>, clock: Clock, cmd: KeysCommand): Promise<number> {
  if (!(await getMerchant(db, cmd.merchant).catch(() => undefined))) {
    console.error(`merchant: no merchant ${cmd.merchant}.`);
    return 1;
  }
  try {
    await run(db, clock, cmd);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    console.error(`merchant: ${err.message}`);
    if (cmd.action === 'roles delete' && err.code === 'invalid_state') {
      console.error(
        `List them with: npm run merchant -- keys list --merchant ${cmd.merchant} --role ${cmd.role}; revoke each with: keys revoke --merchant ${cmd.merchant} --key ID`,
      );
    }
    return 1;
  }
}
