// Serial-numbered inventory items: a merchant's, shared by both modes, always read with their
// product's name.
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofMerchant } from '../../db/scope.js';
import type { InventoryItem, SubscriptionInventoryItemsTable } from './catalog.tables.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import type { MerchantRef } from '../../shared/tenant.js';

/** An inventory item with its product's name. */
export type InventoryItemDetails = InventoryItem & { product_name: string };

function itemsWithProduct(db: Db, owner: MerchantRef) {
  return db
    .selectFrom('subscription_inventory_items as i')
    .innerJoin('products', 'products.id', 'i.product_id')
    .selectAll('i')
    .select('products.name as product_name')
    .where(ofMerchant(owner, 'i'));
}

export async function findInventoryItem(db: Db, owner: MerchantRef, id: number, options: { lock?: boolean } = {}): Promise<InventoryItem | undefined> {
  const query = db.selectFrom('subscription_inventory_items').selectAll().where(ofMerchant(owner)).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function findInventoryItemDetails(db: Db, owner: MerchantRef, id: number): Promise<InventoryItemDetails | undefined> {
  return itemsWithProduct(db, owner).where('i.id', '=', id).executeTakeFirst();
}

/** One page of the merchant's items (the merchant ANDed outside the caller's filter). */
export async function findInventoryItemPage(db: Db, owner: MerchantRef, query: ListQuery): Promise<ListPage<InventoryItemDetails>> {
  return listPage(query, db.selectFrom(itemsWithProduct(db, owner).as('items')).selectAll());
}

/** Another item of the product with this serial number (case-insensitively), other than `exceptId`. */
export async function findSerialNumber(
  db: Db,
  owner: MerchantRef,
  productId: number,
  serialNumber: string,
  exceptId?: number,
): Promise<InventoryItem | undefined> {
  let query = db
    .selectFrom('subscription_inventory_items')
    .selectAll()
    .where(ofMerchant(owner))
    .where('product_id', '=', productId)
    .where((eb) => eb(eb.fn('lower', ['serial_number']), '=', serialNumber.toLowerCase()));
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return query.executeTakeFirst();
}

export async function insertInventoryItem(db: Db, values: Insertable<SubscriptionInventoryItemsTable>): Promise<InventoryItem> {
  return db.insertInto('subscription_inventory_items').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateInventoryItemRow(db: Db, owner: MerchantRef, id: number, changes: Updateable<SubscriptionInventoryItemsTable>): Promise<void> {
  await db.updateTable('subscription_inventory_items').set(changes).where(ofMerchant(owner)).where('id', '=', id).execute();
}

export async function deleteInventoryItemRow(db: Db, owner: MerchantRef, id: number): Promise<void> {
  await db.deleteFrom('subscription_inventory_items').where(ofMerchant(owner)).where('id', '=', id).execute();
}
