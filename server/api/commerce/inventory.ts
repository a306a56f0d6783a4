// Serial-numbered inventory items of the Commerce subscription catalog.
import { createInventoryItem, deleteInventoryItem, listInventoryItems, updateInventoryItem } from '../../domain/catalog/inventory.service.js';
import { compileQuery } from '../../odata/index.js';
import { created, noContent, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { inventoryItemResource } from './odata/catalog.js';
import { odataBody } from './odata-list.js';
import { inventoryItemView, inventoryStatus } from './views/catalog.view.js';

export const inventoryHandlers: CommerceHandlers = {
  async createSubscriptionInventoryItem({ db, deps, tenant, body }) {
    const item = await createInventoryItem(db, deps.clock, tenant, {
      productId: body.productId,
      serialNumber: body.serialNumber,
      status: inventoryStatus(body.status),
    });
    return created(inventoryItemView(item));
  },
  async listSubscriptionInventoryItems({ db, tenant, query }) {
    const compiled = compileQuery(inventoryItemResource, query);
    return ok(odataBody(await listInventoryItems(db, tenant, compiled), compiled, '/v1/SubscriptionInventoryItem', inventoryItemView));
  },
  async updateSubscriptionInventoryItem({ db, deps, tenant, path, body }) {
    return ok(
      inventoryItemView(await updateInventoryItem(db, deps.clock, tenant, path.id, { serialNumber: body.serialNumber, status: inventoryStatus(body.status) })),
    );
  },
  async deleteSubscriptionInventoryItem({ db, tenant, path }) {
    await deleteInventoryItem(db, tenant, path.id);
    return noContent();
  },
};
