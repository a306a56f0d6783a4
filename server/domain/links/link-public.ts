// The public side of a link, for its hosted page: read by identifier or by the merchant's slug and
// the link's code (each read counts a view), its plans on offer, and email verification codes.
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Plan } from '../catalog/catalog.tables.js';
import type { Merchant } from '../merchants/merchant.tables.js';
import type { PaymentLinkRow } from './link.tables.js';
import type { Clock } from '../../shared/clock.js';
import { tenantOf } from '../../shared/tenant.js';
import { tenantClock } from '../clocks/tenant-clock.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { assertAccepting, normalEmail } from './link-access.js';
import { type SentCode, sendLinkCode } from './link-verification.js';
import { findOfferedPlans } from '../catalog/catalog.repository.js';
import { countClick, findLinkByIdentifier, findLinkBySlug } from './link.repository.js';
import { linkNotFound } from './link.service.js';

/** A link as its page shows it: the link, its merchant, the plans on offer, and the link's own clock. */
export interface PublicLink {
  link: PaymentLinkRow;
  merchant: Merchant;
  plans: { plan: Plan; productName: string }[];
  now: Date;
}

/** The link behind a public identifier; 404 when there is none (or it was deleted). */
export async function linkByIdentifier(db: Db, identifier: string, options: { lock?: boolean } = {}): Promise<PaymentLinkRow> {
  const link = await findLinkByIdentifier(db, identifier, options);
  if (!link) throw linkNotFound('identifier');
  return link;
}

/** The link's clock: the merchant's sandbox clock for a test-mode link. */
export const linkNow = async (db: Db, clock: Clock, link: PaymentLinkRow): Promise<Date> => (await tenantClock(db, clock, tenantOf(link))).now();

async function publicOf(db: Db, clock: Clock, link: PaymentLinkRow, count: boolean): Promise<PublicLink> {
  if (count) await countClick(db, link.id);
  const now = await linkNow(db, clock, link);
  const plans =
    link.link_type === 'subscription' && link.subscription_product_id !== null
      ? await findOfferedPlans(db, link.merchant_id, link.subscription_product_id, now)
      : [];
  const counted = count ? { ...link, click_count: link.click_count + 1 } : link;
  return { link: counted, merchant: await getMerchant(db, link.merchant_id), plans, now };
}

/** `GetByIdentifier`: the link of any status, one more view in its `clickCount` (`count` false reads without counting). */
export async function viewLinkByIdentifier(db: Db, clock: Clock, identifier: string, count = true): Promise<PublicLink> {
  return publicOf(db, clock, await linkByIdentifier(db, identifier), count);
}

/** `GetByMerchantSlug`: the same, by the merchant's slug and the link's code. */
export async function viewLinkBySlug(db: Db, clock: Clock, slug: string, code: string): Promise<PublicLink> {
  const link = await findLinkBySlug(db, slug, code);
  if (!link) throw linkNotFound('code');
  return publicOf(db, clock, link, true);
}

/** `SendVerificationCode`: a new code to the payer's email, for a link that asks for one and accepts payments. */
export async function sendVerificationCode(db: Kysely<Database>, clock: Clock, identifier: string, email: string): Promise<SentCode> {
  return db.transaction().execute(async (trx) => {
    const link = await linkByIdentifier(trx, identifier);
    const linkClock = await tenantClock(trx, clock, tenantOf(link));
    if (link.is_email_verification_required) assertAccepting(link, linkClock.now());
    return sendLinkCode(trx, linkClock, link, normalEmail(email));
  });
}
