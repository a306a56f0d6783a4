import { createProduct, getProduct, listProducts } from '../../domain/catalog/catalog.service.js';
import { created, listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { productView } from './views/catalog.view.js';

export const productHandlers: CheckoutHandlers = {
  async createProduct({ db, deps, tenant, body }) {
    return created(productView(await createProduct(db, deps.clock, tenant, body)));
  },
  async listProducts({ db, tenant, query }) {
    return ok(listOf(await listProducts(db, tenant, pageOf(query, 25)), productView));
  },
  async retrieveProduct({ db, tenant, path }) {
    return ok(productView(await getProduct(db, tenant, path.id)));
  },
};
