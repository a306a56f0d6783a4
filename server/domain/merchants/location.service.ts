// A merchant's places of business (issue 35 §16). Every merchant has one primary location: the
// one it was created with, or one Till makes named after it, in its country, with no street or
// city (a merchant made by `npm run merchant`, or the test-merchant operation). Invoices carry
// the primary location unless they name another; a new location may take over as primary.
import type { Kysely } from 'kysely';
import { type AuditTrail, createdFields } from '../../db/audit-trail.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { MerchantLocation } from './identity.tables.js';
import type { Merchant } from './merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { insertLocation } from './identity.repository.js';
import {
  countLocationRows,
  demotePrimaryLocationRow,
  findLocationRow,
  findLocationRows,
  hasPrimaryLocationRow,
  lockMerchantLocations,
} from './location.repository.js';

export { primaryLocationIdQuery } from './location.repository.js';

/** The most locations a merchant may have (the list answers them all in one page). */
export const MAX_LOCATIONS = 100;

/** A further location of the merchant. */
export interface LocationToCreate {
  name: string;
  addressLine1: string;
  addressLine2?: string | undefined;
  city: string;
  region?: string | undefined;
  postalCode?: string | undefined;
  country: string;
  phone?: string | undefined;
  /** Make it the primary location; the former primary one stays, no longer primary. */
  isPrimary?: boolean | undefined;
}

const blankToNull = (value: string | undefined): string | null => (value?.trim() ? value.trim() : null);

/** Adds a location of the merchant; the first one, or one asked to be, becomes the primary one. Recorded on `trail` when given. */
export async function createLocation(
  db: Kysely<Database>,
  clock: Clock,
  merchantId: number,
  input: LocationToCreate,
  trail?: AuditTrail,
): Promise<MerchantLocation> {
  return db.transaction().execute(async (trx) => {
    await lockMerchantLocations(trx, merchantId);
    if ((await countLocationRows(trx, merchantId)) >= MAX_LOCATIONS)
      throw new AppError('invalid_state', { message: `A merchant has at most ${MAX_LOCATIONS} locations; this one has that many.` });
    const primary = input.isPrimary === true || !(await hasPrimaryLocationRow(trx, merchantId));
    if (primary) await demotePrimaryLocationRow(trx, merchantId);
    const location = await insertLocation(trx, {
      merchant_id: merchantId,
      name: input.name.trim(),
      address_line1: input.addressLine1.trim(),
      address_line2: blankToNull(input.addressLine2),
      city: input.city.trim(),
      region: blankToNull(input.region),
      postal_code: blankToNull(input.postalCode),
      country: input.country,
      phone: blankToNull(input.phone),
      is_primary: primary,
      created_at: clock.now(),
    });
    await trail?.(trx, { action: 'merchant_location.created', targetId: location.id, changes: createdFields(locationFields(location)) });
    return location;
  });
}

/** A location's fields as the audit log shows them. */
const locationFields = (l: MerchantLocation) => ({
  name: l.name,
  addressLine1: l.address_line1,
  addressLine2: l.address_line2,
  city: l.city,
  region: l.region,
  postalCode: l.postal_code,
  country: l.country,
  phone: l.phone,
  isPrimary: l.is_primary,
});

/**
 * Gives a merchant made without an address its primary location: named after it, in its country,
 * street and city unknown. Nothing when it has one (the one it was created with).
 */
export async function ensurePrimaryLocation(db: Db, merchant: Merchant): Promise<void> {
  if (await hasPrimaryLocationRow(db, merchant.id)) return;
  await insertLocation(db, {
    merchant_id: merchant.id,
    name: merchant.name.slice(0, 200),
    address_line1: null,
    address_line2: null,
    city: null,
    region: null,
    postal_code: null,
    country: merchant.country,
    phone: null,
    is_primary: true,
    created_at: merchant.created_at,
  });
}

/** One of the merchant's locations, named by a request's `param`; 400 `parameter_invalid` for an unknown id or another merchant's. */
export async function ownLocation(db: Db, merchantId: number, id: number, param: string): Promise<MerchantLocation> {
  const location = await findLocationRow(db, merchantId, id);
  if (!location)
    throw new AppError('parameter_invalid', { param, message: `${param} must be one of your locations (GET /v1/merchantLocation); ${id} is not.` });
  return location;
}

/** The merchant's locations of these ids, by id (for a page of invoices). */
export async function locationsById(db: Db, merchantId: number, ids: Array<number | null>): Promise<Map<number, MerchantLocation>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  return new Map((await findLocationRows(db, merchantId, wanted)).map((l) => [l.id, l]));
}
