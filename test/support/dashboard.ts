// The merchant dashboard over HTTP, as a browser without script drives it: a cookie jar, the
// sign-in form (its form token), pages and form posts with the session's form token.
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import type { TestServer } from './server.js';

export interface PageAnswer {
  status: number;
  headers: Headers;
  html: string;
}

/** A browser's cookie jar for one dashboard session (one client), no redirects followed. */
export class DashboardClient {
  private readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value.join('=') === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(path: string): Promise<PageAnswer> {
    const res = await fetch(`${this.baseUrl}${path}`, { headers: { cookie: this.header() }, redirect: 'manual' });
    this.keep(res);
    return { status: res.status, headers: res.headers, html: await res.text() };
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { cookie: this.header(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.keep(res);
    return { status: res.status, headers: res.headers, html: await res.text() };
  }

  /** Signs in with `key` through the form; the answer of the POST (303 on success). */
  async signIn(key: string): Promise<PageAnswer> {
    const form = await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { key, csrf: csrfOf(form.html), next: '/dashboard' });
  }

  /** Posts a form of a page the way the page's form would: with the page's form token. */
  async submit(pagePath: string, action: string, fields: Record<string, string> = {}): Promise<PageAnswer> {
    const page = await this.get(pagePath);
    return this.post(action, { csrf: csrfOf(page.html), ...fields });
  }
}

/** The form token in a page's HTML. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no form token on the page');
  return m[1]!;
}

let roles = 0;

/** A restricted key of `merchant` (test mode) whose role holds `scopes`: its text. */
export async function restrictedKey(t: TestServer, merchant: MerchantCredentials, scopes: string[], livemode = false): Promise<string> {
  return (await restrictedKeyWithIds(t, merchant, scopes, livemode)).key;
}

/** The same, with its role's and its own id (to revoke it: `DELETE /v1/role/{roleId}/keys/{keyId}`). */
export async function restrictedKeyWithIds(
  t: TestServer,
  merchant: MerchantCredentials,
  scopes: string[],
  livemode = false,
): Promise<{ key: string; roleId: number; keyId: number }> {
  const apiKey = livemode ? merchant.keys.live.secret : merchant.keys.test.secret;
  const role = await t.call('POST', '/v1/role', { apiKey, body: { name: `Dashboard role ${++roles}`, scopes } });
  if (role.status !== 201) throw new Error(`role: ${role.status} ${role.text}`);
  const key = await t.call('POST', `/v1/role/${role.json.id}/keys`, { apiKey, body: { description: 'dashboard test' } });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { key: key.json.key as string, roleId: role.json.id as number, keyId: key.json.id as number };
}
