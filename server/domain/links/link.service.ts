// The merchant's side of payment links: create (a short code, a public identifier), update only
// the fields sent, delete (permanent, paid or not; its invoices stay),
// activate and deactivate, read and list.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { PaymentLinkRow, PaymentLinkUpdate } from './link.tables.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import type { Clock } from '../../shared/clock.js';
import { hashPassword, randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { publicHttpsProblem } from '../../shared/public-url.js';
import type { Tenant } from '../../shared/tenant.js';
import type { PageRequest } from '../../shared/pagination.js';
import { findProduct } from '../catalog/catalog.repository.js';
import { checkSettings, defaultSettings, type LinkChanges, type LinkSettings, mergeSettings } from './link-fields.js';
import { codeTaken, deleteLink, findLink, findLinkPage, findLinks, insertLink, updateLink } from './link.repository.js';

/** A link, and the notification secret Till generated for it in this call (answered once). */
export interface LinkWithSecret {
  link: PaymentLinkRow;
  generatedSecret?: string;
}

/** What link creation needs of the server. */
export interface LinkSettingsContext {
  allowLoopbackWebhooks: boolean;
}

export const linkNotFound = (param = 'id') => new AppError('resource_not_found', { param, message: 'No such payment link.' });

/** The tenant's link; 404 for anyone else's. */
export async function getLink(db: Db, tenant: Tenant, id: number, options: { lock?: boolean } = {}): Promise<PaymentLinkRow> {
  const link = await findLink(db, tenant, id, options);
  if (!link) throw linkNotFound();
  return link;
}

/** The dashboard's page of the tenant's links, newest first, one more than `limit`. */
export const listLinkRows = (db: Db, tenant: Tenant, filter: PageRequest & { status?: PaymentLinkRow['status'] | undefined }): Promise<PaymentLinkRow[]> =>
  findLinks(db, tenant, filter);

export const listLinks = (db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<PaymentLinkRow>> => findLinkPage(db, tenant, query);

/** The checks that need the database or the network: the product offered, the notification URL. */
async function checkReferences(db: Db, tenant: Tenant, s: LinkSettings, changes: LinkChanges, context: LinkSettingsContext): Promise<void> {
  if (
    changes.subscription_product_id !== undefined &&
    s.subscription_product_id !== null &&
    !(await findProduct(db, { merchantId: tenant.merchantId }, s.subscription_product_id))
  ) {
    throw new AppError('validation_error', {
      param: 'subscriptionProductId',
      message: `subscriptionProductId ${s.subscription_product_id} is not one of your subscription products.`,
    });
  }
  if (changes.notification_url) {
    const problem = await publicHttpsProblem(changes.notification_url, { allowLoopback: context.allowLoopbackWebhooks && !tenant.livemode });
    if (problem) throw new AppError('parameter_invalid', { param: 'notificationUrl', message: `notificationUrl ${problem}.` });
  }
}

/** The password and notification-secret columns the changes set; `current` is the stored link (update). */
async function secrets(changes: LinkChanges, current?: PaymentLinkRow): Promise<{ values: PaymentLinkUpdate; generatedSecret?: string }> {
  const values: PaymentLinkUpdate = {};
  const protectedNow = changes.is_password_protected ?? (current ? current.password_hash !== null : false);
  if (!protectedNow) values.password_hash = null;
  else if (changes.password !== undefined) values.password_hash = await hashPassword(changes.password);
  else if (!current?.password_hash) throw new AppError('parameter_missing', { param: 'password', message: 'A password-protected link needs password.' });
  if (changes.password !== undefined && !protectedNow)
    throw new AppError('validation_error', { param: 'password', message: 'password is only used with isPasswordProtected true.' });
  if (changes.notification_secret !== undefined) values.notification_secret = changes.notification_secret;
  else if (changes.notification_url && !current?.notification_secret) {
    const generated = `whsec_${randomToken(32)}`;
    return { values: { ...values, notification_secret: generated }, generatedSecret: generated };
  }
  return { values };
}

const newCode = () => randomToken(8);

/** Creates a link: `active` unless a `draft` is asked for, with a code unique among the merchant's links. */
export async function createLink(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  changes: LinkChanges & { name: string; currency: string },
  context: LinkSettingsContext,
): Promise<LinkWithSecret> {
  const now = clock.now();
  const settings = checkSettings(mergeSettings(defaultSettings(changes, now), changes));
  await checkReferences(db, tenant, settings, changes, context);
  const { values, generatedSecret } = await secrets(changes);
  for (let attempt = 0; ; attempt++) {
    let code = newCode();
    while (await codeTaken(db, tenant.merchantId, code)) code = newCode();
    try {
      const link = await insertLink(db, {
        ...settings,
        merchant_id: tenant.merchantId,
        livemode: tenant.livemode,
        code,
        identifier: randomUUID(),
        status: changes.status ?? 'active',
        password_hash: values.password_hash ?? null,
        notification_secret: values.notification_secret ?? null,
        created_at: now,
        updated_at: now,
      });
      return generatedSecret === undefined ? { link } : { link, generatedSecret };
    } catch (error) {
      // Two creates drew the same code at once: draw again.
      if (!isUniqueViolation(error, 'payment_links_merchant_id_code_key') || attempt >= 3) throw error;
    }
  }
}

const settingsOf = (link: PaymentLinkRow): LinkSettings => {
  const {
    id: _id,
    merchant_id: _m,
    livemode: _l,
    code: _c,
    identifier: _i,
    status: _s,
    click_count: _cc,
    invoice_count: _ic,
    completed_payment_count: _pc,
    total_amount_collected: _t,
    created_at: _ca,
    updated_at: _ua,
    notification_secret: _ns,
    password_hash: _ph,
    is_password_protected: _pp,
    is_subscription_based: _sb,
    ...settings
  } = link;
  return settings;
};

/** Whether a link's uses are spent (`maxUses` completed payments) or its `validTo` has come. */
export const linkSpent = (link: Pick<PaymentLinkRow, 'max_uses' | 'completed_payment_count' | 'valid_to'>, now: Date): boolean =>
  (link.max_uses !== null && link.completed_payment_count >= link.max_uses) || (link.valid_to !== null && link.valid_to.getTime() <= now.getTime());

/**
 * Changes the fields sent; the rules of creation hold for the result. `currencyCode` is locked once
 * the link has invoices (409). An `Expired` link the change makes valid again becomes `Inactive`;
 * an open link the change spends becomes `Expired`.
 */
export async function updateLinkFields(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  id: number,
  changes: LinkChanges,
  context: LinkSettingsContext,
): Promise<LinkWithSecret> {
  return db.transaction().execute(async (trx) => {
    const current = await getLink(trx, tenant, id, { lock: true });
    const now = clock.now();
    if (changes.currency !== undefined && changes.currency.toUpperCase() !== current.currency && current.invoice_count > 0) {
      throw new AppError('invalid_state', { param: 'currencyCode', message: 'currencyCode cannot change once the link has invoices.' });
    }
    const settings = checkSettings(mergeSettings(settingsOf(current), changes));
    await checkReferences(trx, tenant, settings, changes, context);
    const { values, generatedSecret } = await secrets(changes, current);
    const spent = linkSpent({ ...settings, completed_payment_count: current.completed_payment_count }, now);
    const status = current.status === 'expired' ? (spent ? 'expired' : 'inactive') : spent ? 'expired' : current.status;
    const link = await updateLink(trx, tenant, id, { ...settings, ...values, status, updated_at: now });
    return generatedSecret === undefined ? { link } : { link, generatedSecret };
  });
}

/**
 * Deletes a link permanently, paid or not (404 for anyone else's). Its invoices stay, payable and
 * listed: their records keep the link's name and code (the link id becomes null).
 */
export async function removeLink(db: Kysely<Database>, tenant: Tenant, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await getLink(trx, tenant, id, { lock: true });
    await deleteLink(trx, tenant, id);
  });
}

/** Draft or Inactive → Active; Active stays; an expired (or spent) link answers 409. */
export async function activateLink(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number): Promise<PaymentLinkRow> {
  return db.transaction().execute(async (trx) => {
    const link = await getLink(trx, tenant, id, { lock: true });
    const now = clock.now();
    if (link.status === 'expired' || linkSpent(link, now)) {
      throw new AppError('invalid_state', {
        message: 'This payment link has expired (validTo has passed or its uses are spent); update validTo or maxUses first.',
      });
    }
    return link.status === 'active' ? link : updateLink(trx, tenant, id, { status: 'active', updated_at: now });
  });
}

/** Active → Inactive; Inactive stays; a Draft or Expired link answers 409. */
export async function deactivateLink(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number): Promise<PaymentLinkRow> {
  return db.transaction().execute(async (trx) => {
    const link = await getLink(trx, tenant, id, { lock: true });
    if (link.status === 'draft') throw new AppError('invalid_state', { message: 'This payment link is a draft (never published); activate it or delete it.' });
    if (link.status === 'expired') throw new AppError('invalid_state', { message: 'This payment link has expired; it already takes no payments.' });
    return link.status === 'inactive' ? link : updateLink(trx, tenant, id, { status: 'inactive', updated_at: clock.now() });
  });
}
