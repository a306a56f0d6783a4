// Who a hub connection is: a merchant (a secret key, for one mode) or the public (no token).
import type { IncomingHttpHeaders } from 'node:http';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { parseKeyPrefix } from '../domain/merchants/keys.js';
import { findActiveKeyWithHash } from '../domain/merchants/merchant.service.js';
import { hashSecret } from '../shared/crypto.js';
import { AppError } from '../shared/errors.js';
import type { Tenant } from '../shared/tenant.js';

/**
 * A merchant connection hears every invoice of its merchant and mode; a public one only the
 * invoices it subscribes to. A merchant connection keeps its key's hash, to check the key again.
 */
export type HubAccess = { kind: 'merchant'; tenant: Tenant; keyHash: string } | { kind: 'public' };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function headerValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text.trim();
}

/** The key in `Authorization: Bearer <key>` or in the Commerce interface's `x-api-key` (the same key twice is fine; two keys are refused). */
function headerToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headerValue(headers.authorization);
  const bearer = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  if (authorization !== undefined && !bearer) throw new AppError('invalid_api_key', { message: 'The Authorization header must be `Bearer <secret key>`.' });
  const apiKey = headerValue(headers['x-api-key']);
  if (bearer !== undefined && apiKey !== undefined && bearer !== apiKey) {
    throw new AppError('invalid_api_key', { message: 'Two different keys were sent (Authorization and x-api-key). Send one.' });
  }
  return bearer ?? apiKey;
}

/**
 * The access token a client sent: `Authorization: Bearer <key>` or `x-api-key: <key>` (negotiate,
 * the HTTP transports' requests, and Node clients on the WebSocket), else the `access_token` query
 * parameter (browsers cannot set headers on a WebSocket or an EventSource). Undefined when there
 * is none; an Authorization header that is not a bearer token is refused.
 */
export function presentedToken(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined {
  const token = headerToken(headers) ?? (query.get('access_token') || undefined);
  // A browser sends an Origin; a secret or restricted key must never be in one (as everywhere in the API).
  if ((token?.startsWith('sk_') || token?.startsWith('rk_')) && headers.origin !== undefined) {
    throw new AppError('secret_key_in_browser', {
      message:
        'A secret key was sent from a browser. In a web page, open a public connection (no token) and call SubscribeToInvoice with the invoice identifier; keep merchant connections on your server.',
    });
  }
  return token;
}

/** The scope a restricted key's role needs for a merchant connection (it hears every invoice of the merchant and mode). */
export const HUB_SCOPE = 'invoice.read';

type FoundKey = Awaited<ReturnType<typeof findActiveKeyWithHash>>;

/** A found key as a merchant connection's access: a secret key, or a restricted key whose role holds `invoice.read`. */
function grantOf(key: FoundKey, keyHash: string): HubAccess {
  if (!key || (key.kind !== 'secret' && key.kind !== 'restricted'))
    throw new AppError('invalid_api_key', { message: 'The access token is not a valid secret key. Use your sk_test_... or sk_live_... key.' });
  if (key.kind === 'restricted' && !(key.roleScopes ?? []).includes(HUB_SCOPE)) {
    throw new AppError('permission_denied', {
      message: `This restricted key (role \`${key.roleName ?? ''}\`) does not have the scope \`${HUB_SCOPE}\` that a merchant connection to the hub needs.`,
    });
  }
  return { kind: 'merchant', tenant: { merchantId: key.merchantId, livemode: key.livemode }, keyHash };
}

/**
 * What a token grants: a secret key, or a restricted key whose role holds `invoice.read`, is a
 * merchant connection for its mode (a restricted key without it: 403 naming the scope); anything
 * else that was sent is refused (401).
 */
export async function accessFor(db: Kysely<Database>, token: string | undefined): Promise<HubAccess> {
  if (token === undefined) return { kind: 'public' };
  const parsed = parseKeyPrefix(token);
  if (parsed?.kind === 'publishable') {
    throw new AppError('invalid_api_key', {
      message:
        'A publishable key cannot open a merchant connection. Send a secret key (sk_test_... or sk_live_...), or no token for a public connection that follows invoices by identifier.',
    });
  }
  const keyHash = hashSecret(token);
  return grantOf(parsed ? await findActiveKeyWithHash(db, keyHash) : undefined, keyHash);
}

/** Whether a merchant connection's key still grants it (not revoked, its merchant not expired); a public connection always is. */
export async function stillGranted(db: Kysely<Database>, access: HubAccess): Promise<boolean> {
  if (access.kind === 'public') return true;
  try {
    grantOf(await findActiveKeyWithHash(db, access.keyHash), access.keyHash);
    return true;
  } catch (err) {
    if (err instanceof AppError) return false;
    throw err;
  }
}
