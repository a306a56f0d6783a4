import type { components } from '../../../../generated/checkout.js';
import type { Customer } from '../../../domain/customers/customer.tables.js';
import type { Plan, Product } from '../../../domain/catalog/catalog.tables.js';
import { decimalToAmount } from '../../../shared/money.js';

type Schemas = components['schemas'];

/** A product as the Checkout interface shows it. */
export const productView = (p: Product): Schemas['Product'] => ({
  id: p.id,
  object: 'product',
  name: p.name,
  description: p.description,
  type: p.type,
  createdAt: p.created_at.toISOString(),
});

/** A plan as the Checkout interface shows it (numbers, `interval`, `available`/`discontinued`). */
export const planView = (p: Plan): Schemas['Plan'] => ({
  id: p.id,
  object: 'plan',
  productId: p.product_id,
  name: p.name,
  description: p.description,
  amount: decimalToAmount(p.amount, p.currency),
  currency: p.currency,
  interval: p.interval,
  intervalCount: p.interval_count,
  status: p.status,
  active: p.active,
  createdAt: p.created_at.toISOString(),
});

/** A customer as the Checkout interface shows it; `hasPaymentMethod` in the caller's mode (customersWithCardOnFile). */
export const customerView = (c: Customer, hasPaymentMethod: boolean): Schemas['Customer'] => ({
  id: c.id,
  object: 'customer',
  email: c.email ?? '',
  name: c.name,
  phone: c.phone,
  externalId: c.external_id,
  metadata: c.metadata,
  hasPaymentMethod,
  createdAt: c.created_at.toISOString(),
});
