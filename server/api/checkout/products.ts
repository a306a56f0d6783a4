import { createProduct, getProduct, listProducts } from '../../domain/catalog/catalog.service.js';
import { productToCheckout } from '../../domain/catalog/checkout.mapper.js';
import { merchantOf } from '../merchant.js';
import type { CheckoutHandlers } from '../types.js';

export const productHandlers: CheckoutHandlers = {
  async createProduct({ db, deps, auth, body }) {
    const product = await createProduct(db, deps.clock, merchantOf(auth), body);
    return { status: 201, body: productToCheckout(product) };
  },
  async listProducts({ db, auth, query }) {
    const page = await listProducts(db, merchantOf(auth), { limit: query.limit ?? 25, startingAfter: query.startingAfter });
    return { status: 200, body: { object: 'list', data: page.data.map(productToCheckout), hasMore: page.hasMore } };
  },
  async retrieveProduct({ db, auth, path }) {
    return { status: 200, body: productToCheckout(await getProduct(db, merchantOf(auth), path.id)) };
  },
};
