// Sessions of the hosted customer portal: one customer, one mode, one hour by the merchant's
// clock. The URL's token is the credential: shown once (in the create answer's URL), kept only as
// its SHA-256 hash, looked up by that hash.
import type { Db } from '../../db/database.js';
import type { PortalSessionRow } from './portal.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken, sameHash } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { tenantClock } from '../clocks/tenant-clock.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { findPortalSessionByTokenHash, insertPortalSession } from './portal.repository.js';

/** How long a portal session opens the portal. */
export const PORTAL_SESSION_TTL_MS = 60 * 60 * 1000;

/** A portal token: `pt_` and 43 random base62 characters (about 256 bits). */
export const PORTAL_TOKEN = /^pt_[A-Za-z0-9]{43}$/;

/** Where portal pages live, outside `/v1`. */
export const PORTAL_PATH = '/portal';

/** The portal page of a token, on this server. */
export const portalPageUrl = (publicBaseUrl: string, token: string): string => `${publicBaseUrl}${PORTAL_PATH}/${token}`;

/** A new portal session and the one copy of its token. */
export interface NewPortalSession {
  session: PortalSessionRow;
  token: string;
}

const isHttpUrl = (url: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
};

/**
 * Creates a portal session for one of the merchant's customers (another merchant's or an unknown
 * one is 400 `validation_error` naming `clientId`), in the caller's mode, open one hour by `clock`
 * (the tenant's clock). Changes nothing else and writes no event.
 */
export async function createPortalSession(
  db: Db,
  clock: Clock,
  tenant: Tenant,
  input: { clientId: number; returnUrl?: string | undefined },
): Promise<NewPortalSession> {
  if (!(await findOwnCustomer(db, tenant, input.clientId))) {
    throw new AppError('validation_error', { param: 'clientId', message: `clientId ${input.clientId} is not one of your customers.` });
  }
  if (input.returnUrl !== undefined && !isHttpUrl(input.returnUrl)) {
    throw new AppError('parameter_invalid', { param: 'returnUrl', message: 'returnUrl must be an absolute http or https URL.' });
  }
  const token = `pt_${randomToken(43)}`;
  const now = clock.now();
  const session = await insertPortalSession(db, {
    id: `ps_${tenant.livemode ? 'live' : 'test'}_${randomToken(24)}`,
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    customer_id: input.clientId,
    token_hash: hashSecret(token),
    form_token: randomToken(32),
    return_url: input.returnUrl ?? null,
    expires_at: new Date(now.getTime() + PORTAL_SESSION_TTL_MS),
    created_at: now,
  });
  return { session, token };
}

/** What a portal token opens: nothing, a session past its hour, or an open session with its tenant's clock. */
export type PortalAccess = { kind: 'not_found' } | { kind: 'expired'; session: PortalSessionRow } | { kind: 'open'; session: PortalSessionRow; clock: Clock };

/** Opens the portal of a token; its expiry is read on the tenant's clock (the sandbox clock in test mode). */
export async function openPortal(db: Db, appClock: Clock, token: string): Promise<PortalAccess> {
  if (!PORTAL_TOKEN.test(token)) return { kind: 'not_found' };
  const session = await findPortalSessionByTokenHash(db, hashSecret(token));
  if (!session) return { kind: 'not_found' };
  const clock = await tenantClock(db, appClock, tenantOf(session));
  if (session.expires_at <= clock.now()) return { kind: 'expired', session };
  return { kind: 'open', session, clock };
}

/** Whether a form's token is the session's (constant time). */
export const isPortalForm = (session: PortalSessionRow, presented: unknown): boolean =>
  typeof presented === 'string' && sameHash(hashSecret(presented), hashSecret(session.form_token));
