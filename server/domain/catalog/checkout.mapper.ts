import type { components } from '../../../generated/checkout.js';
import { decimalToAmount } from '../../shared/money.js';
import type { Plan, Product } from '../../db/tables/catalog.js';

type Schemas = components['schemas'];

/** A product row as the Checkout interface shows it. */
export const productToCheckout = (p: Product): Schemas['Product'] => ({
  id: p.id,
  object: 'product',
  name: p.name,
  description: p.description,
  type: p.type,
  createdAt: p.created_at.toISOString(),
});

/** A plan row as the Checkout interface shows it (numbers, `interval`, `available`/`discontinued`). */
export const planToCheckout = (p: Plan): Schemas['Plan'] => ({
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
