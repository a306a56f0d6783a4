// Who a dashboard request is for: the session cookie opens a DashboardContext (tenant, key and
// its scopes, the tenant's clock, the form token), or there is none. The key itself never reaches
// the browser: the cookie holds a random session token the server keeps only the hash of.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AppDeps } from '../../api/types.js';
import { tenantClock } from '../../domain/clocks/tenant-clock.js';
import { auditTrail, dashboardActor } from '../../domain/audit/audit.service.js';
import { keyHolds, openDashboardSession } from '../../domain/merchants/dashboard-session.service.js';
import { getMerchant } from '../../domain/merchants/merchant.service.js';
import type { DashboardContext, NavItem } from './section.js';

/** Where the dashboard lives. */
export const DASHBOARD_PATH = '/dashboard';

const COOKIE = 'till_dashboard';

/** The session token of the request's cookie, if any. */
export function sessionToken(req: Request): string | undefined {
  const header = req.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) {
      const token = value.join('=');
      return /^[A-Za-z0-9]{20,100}$/.test(token) ? token : undefined;
    }
  }
  return undefined;
}

const secureCookie = (req: Request, deps: AppDeps): boolean => req.secure || deps.config.publicBaseUrl.startsWith('https:');

/** Sets the session cookie: HttpOnly, SameSite=Strict, Secure on https, until the session ends. */
export function setSessionCookie(req: Request, res: Response, deps: AppDeps, token: string, expiresAt: Date): void {
  res.cookie(COOKIE, token, { httpOnly: true, sameSite: 'strict', secure: secureCookie(req, deps), path: DASHBOARD_PATH, expires: expiresAt });
}

export function clearSessionCookie(req: Request, res: Response, deps: AppDeps): void {
  res.clearCookie(COOKIE, { httpOnly: true, sameSite: 'strict', secure: secureCookie(req, deps), path: DASHBOARD_PATH });
}

/** The form token of a session: derived from its token, so nothing more is stored and it dies with the session. */
export const csrfTokenOf = (token: string): string => createHmac('sha256', token).update('till-dashboard-form').digest('base64url');

/** Whether a posted form token is the session's (constant time). */
export function sameCsrf(expected: string, posted: unknown): boolean {
  if (typeof posted !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(posted);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The dashboard context of a session token, or undefined when there is no open session. `nav`
 * picks the navigation's entries for the context (the sections its key may see).
 */
export async function dashboardContext(
  deps: AppDeps,
  token: string | undefined,
  nav: (ctx: Omit<DashboardContext, 'nav'>) => NavItem[],
  requestId: string | null = null,
): Promise<DashboardContext | undefined> {
  if (!token) return undefined;
  const db = deps.database.db;
  const access = await openDashboardSession(db, deps.clock, token);
  if (!access) return undefined;
  const [merchant, clock] = await Promise.all([getMerchant(db, access.tenant.merchantId), tenantClock(db, deps.clock, access.tenant, deps.sandboxOffsets)]);
  const ctx: Omit<DashboardContext, 'nav'> = {
    deps,
    db,
    clock,
    tenant: access.tenant,
    merchantName: merchant.name,
    key: access.key,
    modes: access.modes,
    csrf: csrfTokenOf(token),
    can: (...scopes) => keyHolds(access.key, scopes),
    audit: auditTrail({ tenant: access.tenant, actor: dashboardActor(access.sessionRef), requestId, clock }),
  };
  return { ...ctx, nav: nav(ctx) };
}
