import { listLocations } from '../../domain/merchants/identity.service.js';
import { createLocation } from '../../domain/merchants/location.service.js';
import { getMerchant } from '../../domain/merchants/merchant.service.js';
import { createOwnedMerchant } from '../../domain/merchants/owned-merchant.service.js';
import { trailOf } from '../audit.js';
import { created, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { locationView, merchantCreatedView, merchantView } from './views/merchant.view.js';

export const merchantHandlers: CommerceHandlers = {
  async getMerchant({ db, tenant }) {
    return ok(merchantView(await getMerchant(db, tenant.merchantId)));
  },
  async createMerchant(input) {
    const { db, deps, tenant, body } = input;
    const fields = {
      name: body.name,
      email: body.email,
      slug: body.slug,
      website: body.website ?? null,
      logoUrl: body.logoUrl ?? null,
      country: body.country,
      defaultCurrency: body.defaultCurrency,
      settings: body.settings,
      location: body.location && { ...body.location, ...body.location.address },
    };
    const made = await createOwnedMerchant(db, deps.clock, tenant, fields, trailOf(input));
    return created(merchantCreatedView(made.merchant, made.keys));
  },
  async listMerchantLocations({ db, tenant }) {
    return ok({ value: (await listLocations(db, tenant.merchantId)).map(locationView) });
  },
  async createMerchantLocation(input) {
    const { address, ...rest } = input.body;
    return created(locationView(await createLocation(input.db, input.deps.clock, input.tenant.merchantId, { ...rest, ...address }, trailOf(input))));
  },
};
