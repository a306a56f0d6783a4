import type { Logger } from 'pino';
import type { BeforeCommit } from '../db/commit-hook.js';
import type { RatePlan } from '../domain/merchants/merchant.tables.js';
import type { RouteOperation } from './routes.js';
import type { Grants } from '../domain/merchants/identity.service.js';

/** Who is calling, as authentication established it. */
export interface AuthContext {
  /** How the caller authenticated. */
  kind: 'secret' | 'publishable' | 'client_secret' | 'api_key' | 'public';
  /** The merchant acted for; null for public operations. */
  merchantId: number | null;
  /** Test or live mode: every query of merchant data filters on it. */
  livemode: boolean;
  /** The API key used, for rate limits; null for client-secret and public calls. */
  keyId: number | null;
  /** A server key's display prefix (`sk_test_AbCd`, never the key): who the audit log says made a change. */
  keyPrefix?: string;
  ratePlan: RatePlan;
  /** The one checkout session a publishable key or client secret may act on. */
  sessionId: string | null;
  /** A restricted key's role and scopes (it was let in because they hold the operation's); null for every other caller. */
  grants: Grants;
}

/** What the pipeline learns about a request, in order: id, operation, caller. */
export interface RequestContext {
  requestId: string;
  /** When the request arrived (process.hrtime.bigint()). */
  started?: bigint;
  /** What every log line of the request carries (the request id, then the caller). */
  bindings: Record<string, unknown>;
  /** The request's logger, made on first use. */
  log: Logger;
  /** Adds to what the request's log lines carry. */
  bind(more: Record<string, unknown>): void;
  route?: RouteOperation;
  params?: Record<string, string>;
  auth?: AuthContext;
  /** Work that must commit with each transaction the handler runs (the Idempotency-Key's mark). */
  beforeCommit?: BeforeCommit;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      till: RequestContext;
    }
  }
}
