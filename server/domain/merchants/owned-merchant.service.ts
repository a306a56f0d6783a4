import type { Kysely } from 'kysely';
import { type AuditTrail, createdFields } from '../../db/audit-trail.js';
import type { Database } from '../../db/schema.js';
import type { MerchantLocation } from './identity.tables.js';
import type { Merchant } from './merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { insertLocation, insertOwner } from './identity.repository.js';
import { ownerOf } from './identity.service.js';
import { findMerchant } from './merchant.repository.js';
import { type MerchantToCreate, type MerchantKeys, createMerchant } from './merchant.service.js';

/** The new merchant's first place of business. */
export interface NewLocation {
  name?: string | undefined;
  addressLine1: string;
  addressLine2?: string | undefined;
  city: string;
  region?: string | undefined;
  postalCode?: string | undefined;
  country: string;
  phone?: string | undefined;
}

/** A merchant made by another's key: the merchant, its primary location if one was sent, and its keys of the caller's mode (shown once). */
export interface OwnedMerchant {
  merchant: Merchant;
  location: MerchantLocation | null;
  keys: MerchantKeys['test'];
}

const blankToNull = (value: string | undefined): string | null => (value?.trim() ? value.trim() : null);

/**
 * Creates a further merchant owned by the caller's user (`POST /v1/merchant`): the same person
 * becomes the new merchant's owner. A sandbox merchant cannot (its keys expire within the hour).
 * Recorded on the caller's `trail` when given (never the new merchant's keys).
 */
export async function createOwnedMerchant(
  db: Kysely<Database>,
  clock: Clock,
  caller: Tenant,
  input: Omit<MerchantToCreate, 'also' | 'ratePlan' | 'brandColor'> & { location?: NewLocation | undefined },
  trail?: AuditTrail,
): Promise<OwnedMerchant> {
  const parent = await findMerchant(db, caller.merchantId);
  if (parent.parent_merchant_id !== null)
    throw new AppError('permission_denied', { message: "A sandbox merchant cannot create merchants. Use your own merchant's key." });
  const owner = await ownerOf(db, clock, parent);
  let location: MerchantLocation | null = null;
  const { location: place, ...profile } = input;
  const { merchant, credentials } = await createMerchant(db, clock, {
    ...profile,
    ratePlan: 'standard',
    async also(trx, made) {
      await insertOwner(trx, {
        merchant_id: made.id,
        email: owner.email,
        first_name: owner.first_name,
        last_name: owner.last_name,
        created_at: made.created_at,
      });
      await trail?.(trx, { action: 'merchant.created', targetId: made.id, changes: createdFields(merchantFields(made)) });
      if (!place) return;
      location = await insertLocation(trx, {
        merchant_id: made.id,
        name: blankToNull(place.name) ?? made.name,
        address_line1: place.addressLine1.trim(),
        address_line2: blankToNull(place.addressLine2),
        city: place.city.trim(),
        region: blankToNull(place.region),
        postal_code: blankToNull(place.postalCode),
        country: place.country,
        phone: blankToNull(place.phone),
        is_primary: true,
        created_at: made.created_at,
      });
    },
  });
  return { merchant, location, keys: caller.livemode ? credentials.keys.live : credentials.keys.test };
}

/** A merchant's fields as the audit log shows them. */
const merchantFields = (m: Merchant) => ({
  name: m.name,
  email: m.email,
  slug: m.slug,
  website: m.website,
  country: m.country,
  defaultCurrency: m.default_currency,
});
