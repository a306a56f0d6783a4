import type { components } from '../../../generated/checkout.js';
import type { Customer } from '../../db/tables/customers.js';

/** A customer row as the Checkout interface shows it. */
export const customerToCheckout = (c: Customer): components['schemas']['Customer'] => ({
  id: c.id,
  object: 'customer',
  email: c.email ?? '',
  name: c.name,
  phone: c.phone,
  externalId: c.external_id,
  metadata: c.metadata,
  hasPaymentMethod: c.has_payment_method,
  createdAt: c.created_at.toISOString(),
});
