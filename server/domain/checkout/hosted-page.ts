// What the hosted payment page shows for a session: read by the session id alone (the page's
// URL), so it holds nothing that pays: paying needs the client secret, which the page's address
// carries in its fragment and never sends to the server.
import type { Db } from '../../db/database.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { tenantOf } from '../../shared/tenant.js';
import { findOwnPlan } from '../catalog/catalog.service.js';
import { tenantClock } from '../clocks/tenant-clock.js';
import { getMerchant, hostedPageKey } from '../merchants/merchant.service.js';
import { findSessionById, OPEN_STATUSES } from './session.repository.js';
import { type SessionPaymentOption, allowedPaymentMethods } from './session.service.js';

/** How the page presents the session: payable, or one of the ends that show no form. */
export type HostedState = 'payable' | 'completed' | 'expired' | 'cancelled';

export interface HostedCheckout {
  session: CheckoutSessionRow;
  state: HostedState;
  merchant: Merchant;
  /** The plan of a subscription session. */
  plan: Plan | null;
  methods: SessionPaymentOption[];
  /** The publishable key the page calls the API with (publishable keys are public). */
  publishableKey: string;
  now: Date;
}

function stateOf(session: CheckoutSessionRow, now: Date): HostedState {
  if (session.status === 'completed') return 'completed';
  if (session.status === 'cancelled') return 'cancelled';
  if (session.status === 'expired' || !(OPEN_STATUSES as readonly string[]).includes(session.status) || session.expires_at <= now) return 'expired';
  return 'payable';
}

/** The hosted page of a session, or undefined when there is no such session. The session's own clock decides expiry (the sandbox clock in test mode). */
export async function hostedCheckout(db: Db, clock: Clock, sessionId: string): Promise<HostedCheckout | undefined> {
  const session = await findSessionById(db, sessionId);
  if (!session) return undefined;
  const tenant = tenantOf(session);
  const now = (await tenantClock(db, clock, tenant)).now();
  const merchant = await getMerchant(db, session.merchant_id);
  const plan = session.subscription_plan_id === null ? null : ((await findOwnPlan(db, tenant, session.subscription_plan_id)) ?? null);
  const publishableKey = await hostedPageKey(db, clock, tenant);
  return { session, state: stateOf(session, now), merchant, plan, methods: allowedPaymentMethods(session, merchant), publishableKey, now };
}

/** The address a payer opens: the hosted page, with the client secret in the fragment (which browsers never send to a server). */
export const payPageUrl = (pageUrl: string, clientSecret: string): string => `${pageUrl}#cs=${clientSecret}`;
