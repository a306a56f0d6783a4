// Serial-numbered units of a product (the Commerce catalog's inventory items). A serial number is
// unique among one product's items, compared case-insensitively (two products may share one); the
// status moves by update to any value (usually available → reserved → rented); a rented unit
// cannot be deleted.
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { InventoryItemStatus } from './catalog.tables.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { MerchantRef } from '../../shared/tenant.js';
import { findProduct } from './catalog.repository.js';
import {
  deleteInventoryItemRow,
  findInventoryItem,
  findInventoryItemDetails,
  findInventoryItemPage,
  findSerialNumber,
  type InventoryItemDetails,
  insertInventoryItem,
  updateInventoryItemRow,
} from './inventory.repository.js';

export type { InventoryItemDetails };

const notFound = (id: number) => new AppError('resource_not_found', { param: 'id', message: `No such inventory item: ${id}.` });
const serialTaken = (serialNumber: string) =>
  new AppError('invalid_state', { param: 'serialNumber', message: `Another inventory item of this product already has serial number ${serialNumber}.` });

/** The unique index refuses the second of two racing writers of one serial number: the same 409. */
const refuseDuplicate =
  (serialNumber: string) =>
  (error: unknown): never => {
    throw isUniqueViolation(error, 'subscription_inventory_items_serial') ? serialTaken(serialNumber) : error;
  };

/** Adds a unit of one of the merchant's products (another merchant's product: 400 on `productId`). */
export async function createInventoryItem(
  db: Kysely<Database>,
  clock: Clock,
  owner: MerchantRef,
  input: { productId: number; serialNumber: string; status?: InventoryItemStatus | undefined },
): Promise<InventoryItemDetails> {
  return db.transaction().execute(async (trx) => {
    if (!(await findProduct(trx, owner, input.productId))) {
      throw new AppError('validation_error', { param: 'productId', message: `productId ${input.productId} is not one of your subscription products.` });
    }
    if (await findSerialNumber(trx, owner, input.productId, input.serialNumber)) throw serialTaken(input.serialNumber);
    const now = clock.now();
    const item = await insertInventoryItem(trx, {
      merchant_id: owner.merchantId,
      product_id: input.productId,
      serial_number: input.serialNumber,
      status: input.status ?? 'available',
      created_at: now,
      updated_at: now,
    }).catch(refuseDuplicate(input.serialNumber));
    return (await findInventoryItemDetails(trx, owner, item.id))!;
  });
}

/** Changes the serial number or status sent; the others keep their value. */
export async function updateInventoryItem(
  db: Kysely<Database>,
  clock: Clock,
  owner: MerchantRef,
  id: number,
  input: { serialNumber?: string | undefined; status?: InventoryItemStatus | undefined },
): Promise<InventoryItemDetails> {
  return db.transaction().execute(async (trx) => {
    const item = await findInventoryItem(trx, owner, id, { lock: true });
    if (!item) throw notFound(id);
    if (input.serialNumber !== undefined && (await findSerialNumber(trx, owner, item.product_id, input.serialNumber, id)))
      throw serialTaken(input.serialNumber);
    const changes = {
      ...(input.serialNumber !== undefined ? { serial_number: input.serialNumber } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
    };
    if (Object.keys(changes).length > 0)
      await updateInventoryItemRow(trx, owner, id, { ...changes, updated_at: clock.now() }).catch(refuseDuplicate(input.serialNumber ?? ''));
    return (await findInventoryItemDetails(trx, owner, id))!;
  });
}

/** Deletes a unit for good; a rented one answers 409 (it is with a subscriber). */
export async function deleteInventoryItem(db: Kysely<Database>, owner: MerchantRef, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const item = await findInventoryItem(trx, owner, id, { lock: true });
    if (!item) throw notFound(id);
    if (item.status === 'rented')
      throw new AppError('invalid_state', { message: 'The item is rented to a subscriber. Set its status to Available or Discontinued first.' });
    await deleteInventoryItemRow(trx, owner, id);
  });
}

/** One page of the merchant's items. */
export const listInventoryItems = (db: Db, owner: MerchantRef, query: ListQuery): Promise<ListPage<InventoryItemDetails>> =>
  findInventoryItemPage(db, owner, query);
