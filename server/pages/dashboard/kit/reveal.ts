// A secret shown once after a POST, by post/redirect/get: the POST seals it into a short-lived
// cookie (AES-256-GCM under a key derived from the session's token, so only this session's
// requests can open it) and redirects; the GET opens it and clears the cookie in the same answer.
// A refresh of that page finds no cookie: nothing is made again and the secret is not shown again.
// The server keeps nothing.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { sessionToken } from '../context.js';
import type { DashboardContext } from '../section.js';

const COOKIE = 'till_dashboard_reveal';
const SECONDS = 120;

const keyOf = (token: string): Buffer => createHmac('sha256', token).update('till-dashboard-reveal').digest();
const options = (req: Request, ctx: DashboardContext, path: string) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: req.secure || ctx.deps.config.publicBaseUrl.startsWith('https:'),
  path,
});

/** Seals `secret` (for the page at `path`) into the reveal cookie of this answer. */
export function sealForReveal(req: Request, res: Response, ctx: DashboardContext, path: string, secret: string): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionToken(req)!), iv);
  cipher.setAAD(Buffer.from(path));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const value = [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
  res.cookie(COOKIE, value, { ...options(req, ctx, path), maxAge: SECONDS * 1000 });
}

/** Opens the reveal cookie sealed for `path` by this session, and clears it: the secret, once, or undefined. */
export function openReveal(req: Request, res: Response, ctx: DashboardContext, path: string): string | undefined {
  const m = new RegExp(`(?:^|;\\s*)${COOKIE}=([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)`).exec(req.get('cookie') ?? '');
  if (!m) return undefined;
  res.clearCookie(COOKIE, options(req, ctx, path));
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionToken(req)!), Buffer.from(m[1]!, 'base64url'));
    decipher.setAAD(Buffer.from(path));
    decipher.setAuthTag(Buffer.from(m[2]!, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(m[3]!, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined; // another session's, or tampered with
  }
}
