// Who a hub connection is: a merchant (a secret key, for one mode) or the public (no token).
import type { IncomingHttpHeaders } from 'node:http';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { parseKeyPrefix } from '../domain/merchants/keys.js';
import { findActiveKey } from '../domain/merchants/merchant.service.js';
import { AppError } from '../shared/errors.js';
import type { Tenant } from '../shared/tenant.js';

/** A merchant connection hears every invoice of its merchant and mode; a public one only the invoices it subscribes to. */
export type HubAccess = { kind: 'merchant'; tenant: Tenant } | { kind: 'public' };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The access token a client sent: `Authorization: Bearer <key>` (negotiate, and Node clients on
 * the WebSocket) or the `access_token` query parameter (browsers cannot set WebSocket headers).
 * Undefined when there is none; an Authorization header that is not a bearer token is refused.
 */
export function presentedToken(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined {
  const authorization = headers.authorization;
  let token: string | undefined;
  if (authorization !== undefined && authorization !== '') {
    token = BEARER.exec(authorization)?.[1];
    if (!token) throw new AppError('invalid_api_key', { message: 'The Authorization header must be `Bearer <secret key>`.' });
  } else {
    token = query.get('access_token') || undefined;
  }
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
  const key = parsed ? await findActiveKey(db, token) : undefined;
  if (!key || (key.kind !== 'secret' && key.kind !== 'restricted'))
    throw new AppError('invalid_api_key', { message: 'The access token is not a valid secret key. Use your sk_test_... or sk_live_... key.' });
  if (key.kind === 'restricted' && !(key.roleScopes ?? []).includes(HUB_SCOPE)) {
    throw new AppError('permission_denied', {
      message: `This restricted key (role \`${key.roleName ?? ''}\`) does not have the scope \`${HUB_SCOPE}\` that a merchant connection to the hub needs.`,
    });
  }
  return { kind: 'merchant', tenant: { merchantId: key.merchantId, livemode: key.livemode } };
}
