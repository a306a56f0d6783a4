import { listLocations } from '../../domain/merchants/identity.service.js';
import { createLocation } from '../../domain/merchants/location.service.js';
import { getMerchant } from '../../domain/merchants/merchant.service.js';
import { createOwnedMerchant } from '../../domain/merchants/owned-merchant.service.js';
import { created, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { locationView, merchantCreatedView, merchantView } from './views/merchant.view.js';

export const merchantHandlers: CommerceHandlers = {
  async getMerchant({ db, tenant }) {
    return ok(merchantView(await getMerchant(db, tenant.merchantId)));
  },
  async createMerchant({ db, deps, tenant, body }) {
    const made = await createOwnedMerchant(db, deps.clock, tenant, {
      name: body.name,
      email: body.email,
      slug: body.slug,
      website: body.website ?? null,
      logoUrl: body.logoUrl ?? null,
      country: body.country,
      defaultCurrency: body.defaultCurrency,
      settings: body.settings,
      location: body.location && { ...body.location, ...body.location.address },
    });
    return created(merchantCreatedView(made.merchant, made.keys));
  },
  async listMerchantLocations({ db, tenant }) {
    return ok({ value: (await listLocations(db, tenant.merchantId)).map(locationView) });
  },
  async createMerchantLocation({ db, deps, tenant, body }) {
    const { address, ...rest } = body;
    return created(locationView(await createLocation(db, deps.clock, tenant.merchantId, { ...rest, ...address })));
  },
};
