import type { RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { hashSecret, sameHash } from '../shared/crypto.js';
import { TtlCache } from '../shared/ttl-cache.js';
import { keyDisplayPrefix, parseKeyPrefix } from '../domain/merchants/keys.js';
import { findActiveKey } from '../domain/merchants/merchant.service.js';
import { onKeyRevoked } from '../domain/merchants/key-revocation.js';
import { sessionForClientSecret } from '../domain/checkout/session.service.js';
import type { AuthContext } from './context.js';
import type { Grants } from '../domain/merchants/identity.service.js';
import type { RouteOperation } from './routes.js';

/**
 * Found keys, by hash, for a short while: authentication is on every request, and the key row
 * barely changes. A restricted key's role (name and scopes) comes with it: roles never change
 * once made. A revoked key stops working within 30 seconds (at once on the process that revoked it). Unknown keys are not cached,
 * so random keys cannot fill it.
 */
const keyCache = new TtlCache<string, NonNullable<Awaited<ReturnType<typeof findActiveKey>>>>(30_000, 10_000);

async function lookupKey(db: Kysely<Database>, presented: string) {
  const hash = hashSecret(presented);
  const hit = keyCache.get(hash);
  // A sandbox merchant's key stops at its expiry even while it is cached.
  if (hit && !(hit.sandboxExpiresAt && new Date(hit.sandboxExpiresAt).getTime() <= Date.now())) return hit;
  const key = await findActiveKey(db, presented);
  if (key) keyCache.set(hash, key);
  else keyCache.delete(hash);
  return key;
}

type FoundKey = NonNullable<Awaited<ReturnType<typeof lookupKey>>>;

/** Forgets a key this process remembers (it was revoked here): it stops working at once on this process, within 30 seconds on the others. */
export const forgetKey = (keyHash: string): void => keyCache.delete(keyHash);
// A key revoked anywhere in this process (the API, a service) is forgotten here at once.
onKeyRevoked(({ keyHash }) => forgetKey(keyHash));

/** Operations that manage keys (`x-secret-key-only` in the contract): a restricted key is refused them whatever its role. */
const secretKeyOnly = (route: RouteOperation): boolean => (route.operation as { 'x-secret-key-only'?: boolean })['x-secret-key-only'] === true;

/** A server key: secret (every scope) or restricted (its role's). */
const isServerKey = (key: FoundKey) => key.kind === 'secret' || key.kind === 'restricted';

/**
 * What a server key holds for this operation: null for a secret key (every scope); for a
 * restricted key its role, once every scope the operation names is among the role's (else 403
 * naming the first missing one).
 */
function grantsFor(route: RouteOperation, key: FoundKey): Grants {
  if (key.kind !== 'restricted') return null;
  const grants = { roleName: key.roleName ?? '', scopes: key.roleScopes ?? [] };
  if (secretKeyOnly(route)) {
    throw new AppError('permission_denied', {
      message: `A restricted key (role \`${grants.roleName}\`) cannot call ${route.operationId}: its scope \`${scopeOf(route)}\` belongs to the merchant's full secret key only. Call it with your sk_test_... or sk_live_... key.`,
    });
  }
  const missing = route.scopes.find((scope) => !grants.scopes.includes(scope));
  if (missing !== undefined) {
    throw new AppError('permission_denied', {
      message: `This restricted key (role \`${grants.roleName}\`) does not have the scope \`${missing}\` needed by this operation (${route.operationId}). Use a key whose role holds it.`,
    });
  }
  return grants;
}

/** A client secret is `<sessionId>_secret_<random>`. */
const CLIENT_SECRET = /^(cs_(?:test|live)_[A-Za-z0-9]+)_secret_[A-Za-z0-9]+$/;

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/** The scope an operation needs, for messages. */
const scopeOf = (route: RouteOperation) => route.scopes[0] ?? route.operationId;

/**
 * Establishes who is calling, exactly as the contracts say per operation: a secret key, a
 * publishable key with the session's client secret, the client secret alone, `x-api-key`, or
 * nothing for public operations. A key whose kind the operation does not accept is a 403.
 */
export function authenticate(db: Kysely<Database>): RequestHandler {
  return async (req, _res, next) => {
    try {
      const route = req.till.route!;
      req.till.auth = await authFor(db, route, req.till.params ?? {}, {
        authorization: req.get('authorization'),
        apiKey: req.get('x-api-key'),
        clientSecret: req.get('x-client-secret'),
      });
      req.till.bind({ merchantId: req.till.auth.merchantId, livemode: req.till.auth.livemode });
      next();
    } catch (err) {
      next(err);
    }
  };
}

interface Presented {
  authorization: string | undefined;
  apiKey: string | undefined;
  clientSecret: string | undefined;
}

/** Whether one of the route's security alternatives holds all of `schemes`. */
const accepts = (route: RouteOperation, ...schemes: string[]) => route.security.some((alt) => schemes.every((s) => alt.includes(s)));

export async function authFor(db: Kysely<Database>, route: RouteOperation, params: Record<string, string>, presented: Presented): Promise<AuthContext> {
  const allowed = route.security;
  if (allowed.length === 0 || allowed.some((alt) => alt.length === 0)) {
    return { kind: 'public', merchantId: null, livemode: false, keyId: null, ratePlan: 'standard', sessionId: null, grants: null };
  }
  if (route.api === 'commerce') return commerceKeyAuth(db, route, presented.apiKey);

  const bearer = bearerToken(presented.authorization);
  if (presented.authorization !== undefined && bearer === undefined) {
    throw new AppError('invalid_api_key', { message: 'The Authorization header must be `Bearer <key>`.' });
  }
  if (bearer !== undefined) return bearerKeyAuth(db, route, params, presented, bearer);

  if (presented.clientSecret && allowed.some((alt) => alt.length === 1 && alt[0] === 'clientSecret')) {
    const session = await sessionForSecret(db, presented.clientSecret, params.id);
    return {
      kind: 'client_secret',
      merchantId: session.merchantId,
      livemode: session.livemode,
      keyId: null,
      ratePlan: session.ratePlan,
      sessionId: session.id,
      grants: null,
    };
  }
  throw new AppError('authentication_required', {
    message: accepts(route, 'secretKey')
      ? 'No API key was sent. Send `Authorization: Bearer sk_test_...`.'
      : "No key was sent. Send `Authorization: Bearer pk_test_...` with the session's `X-Client-Secret`.",
  });
}

/** The Commerce interface: a secret or restricted key in `x-api-key`. */
async function commerceKeyAuth(db: Kysely<Database>, route: RouteOperation, apiKey: string | undefined): Promise<AuthContext> {
  if (!apiKey) throw new AppError('authentication_required', { message: 'No API key was sent. Send your secret key in the `x-api-key` header.' });
  const kind = parseKeyPrefix(apiKey)?.kind;
  const key = kind === 'secret' || kind === 'restricted' ? await lookupKey(db, apiKey) : undefined;
  if (!key || !isServerKey(key)) {
    throw new AppError('invalid_api_key', {
      message: 'The x-api-key is not a valid secret key. Use your sk_test_... or sk_live_... key (or a restricted rk_ key).',
    });
  }
  const grants = grantsFor(route, key);
  const keyPrefix = keyDisplayPrefix(apiKey);
  return { kind: 'api_key', merchantId: key.merchantId, livemode: key.livemode, keyId: key.keyId, keyPrefix, ratePlan: key.ratePlan, sessionId: null, grants };
}

/** The Checkout interface's bearer key: a secret or restricted key, or a publishable key with the session's client secret. */
async function bearerKeyAuth(
  db: Kysely<Database>,
  route: RouteOperation,
  params: Record<string, string>,
  presented: Presented,
  bearer: string,
): Promise<AuthContext> {
  const parsed = parseKeyPrefix(bearer);
  const key = parsed ? await lookupKey(db, bearer) : undefined;
  if (!key) throw new AppError('invalid_api_key');
  if (isServerKey(key)) {
    if (!accepts(route, 'secretKey')) {
      throw new AppError('permission_denied', {
        message: `A ${key.kind} key cannot call this operation; it needs the publishable-key scope \`${scopeOf(route)}\` with the session's X-Client-Secret.`,
      });
    }
    const grants = grantsFor(route, key);
    const keyPrefix = keyDisplayPrefix(bearer);
    return { kind: 'secret', merchantId: key.merchantId, livemode: key.livemode, keyId: key.keyId, keyPrefix, ratePlan: key.ratePlan, sessionId: null, grants };
  }
  // A publishable key is never valid without the client secret of the session it targets.
  if (!presented.clientSecret)
    throw new AppError('invalid_client_secret', { message: 'A publishable key needs the X-Client-Secret header of the checkout session it acts on.' });
  if (!accepts(route, 'publishableKey', 'clientSecret')) {
    throw new AppError('permission_denied', {
      message: `A publishable key does not have the scope \`${scopeOf(route)}\`; call this operation from your server with a secret key.`,
    });
  }
  const sessionId = await verifyClientSecret(db, presented.clientSecret, params.id, { merchantId: key.merchantId, livemode: key.livemode });
  return { kind: 'publishable', merchantId: key.merchantId, livemode: key.livemode, keyId: key.keyId, ratePlan: key.ratePlan, sessionId, grants: null };
}

/** Checks that a client secret belongs to the session in the path; returns the session id. */
async function verifyClientSecret(
  db: Kysely<Database>,
  secret: string,
  pathId: string | undefined,
  owner: { merchantId: number; livemode: boolean },
): Promise<string> {
  const session = await sessionForSecret(db, secret, pathId);
  if (session.merchantId !== owner.merchantId || session.livemode !== owner.livemode) throw new AppError('invalid_client_secret');
  return session.id;
}

async function sessionForSecret(db: Kysely<Database>, secret: string, pathId: string | undefined) {
  const m = CLIENT_SECRET.exec(secret);
  if (!m || (pathId !== undefined && m[1] !== pathId)) throw new AppError('invalid_client_secret');
  const session = await sessionForClientSecret(db, m[1]!);
  if (!session || !sameHash(session.client_secret_hash, hashSecret(secret))) throw new AppError('invalid_client_secret');
  return session;
}
