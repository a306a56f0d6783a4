// The merchant and its locations, as the Commerce interface writes them.
import type { components } from '../../../../generated/commerce.js';
import type { MerchantLocation } from '../../../domain/merchants/identity.tables.js';
import type { Merchant } from '../../../domain/merchants/merchant.tables.js';
import type { MerchantKeys } from '../../../domain/merchants/merchant.service.js';

type Schemas = components['schemas'];

export const merchantView = (m: Merchant): Schemas['Merchant'] => ({
  id: m.id,
  name: m.name,
  email: m.email,
  slug: m.slug,
  logoUrl: m.logo_url,
  media: m.logo_url ? [{ mediaUrl: m.logo_url }] : [],
  website: m.website,
  country: m.country,
  defaultCurrency: m.default_currency as Schemas['Merchant']['defaultCurrency'],
  ratePlan: m.rate_plan,
  settings: { messageCheckoutCustomers: m.message_checkout_customers, sendCheckoutReceipts: m.send_checkout_receipts },
  createdDateTime: m.created_at.toISOString(),
});

/** A merchant just made, with its keys of the caller's mode (shown once). */
export const merchantCreatedView = (m: Merchant, keys: MerchantKeys['test']): Schemas['MerchantCreated'] => ({
  ...merchantView(m),
  keys: { secret: keys.secret, publishable: keys.publishable },
});

export const locationView = (l: MerchantLocation): Schemas['MerchantLocation'] => ({
  id: l.id,
  name: l.name,
  address: { addressLine1: l.address_line1, addressLine2: l.address_line2, city: l.city, region: l.region, postalCode: l.postal_code, country: l.country },
  phone: l.phone,
  isPrimary: l.is_primary,
});
