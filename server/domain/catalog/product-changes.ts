// Changing and deleting a product of the catalog (both interfaces show the same row).
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { sqlState } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { Product } from './catalog.tables.js';
import { AppError } from '../../shared/errors.js';
import type { MerchantRef } from '../../shared/tenant.js';
import { deleteProductRow, findProduct, productUsage, updateProductRow } from './catalog.repository.js';
import { type NewProductMedia, productMedia } from './product-media.js';

const notFound = (id: number) => new AppError('resource_not_found', { param: 'id', message: `No such product: ${id}.` });

/** What a product update changes: the fields sent, in the stored spelling. */
export interface ProductChanges {
  name?: string | undefined;
  description?: string | null | undefined;
  type?: Product['type'] | undefined;
  /** Replaces the whole list of images. */
  media?: NewProductMedia[] | undefined;
}

/** Changes the fields sent; the others keep their value. */
export async function updateProduct(db: Db, owner: MerchantRef, id: number, input: ProductChanges): Promise<Product> {
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.type !== undefined ? { type: input.type } : {}),
    ...(input.media !== undefined ? { media: JSON.stringify(productMedia(input.media)) } : {}),
  };
  const product = Object.keys(changes).length === 0 ? await findProduct(db, owner, id) : await updateProductRow(db, owner, id, changes);
  if (!product) throw notFound(id);
  return product;
}

const inUse = (message: string) => new AppError('invalid_state', { message });

/**
 * Deletes a product that nothing refers to. A product with plans is kept for good (plans are never
 * deleted: subscriptions and their invoices refer to them); one with inventory items, or anything
 * else that refers to it (a payment link), can be deleted once they are removed. Refusals are 409.
 */
export async function deleteProduct(db: Kysely<Database>, owner: MerchantRef, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!(await findProduct(trx, owner, id, { lock: true }))) throw notFound(id);
    const usage = await productUsage(trx, owner, id);
    if (usage.plans > 0)
      throw inUse(
        `The product has ${usage.plans} plan(s); plans are never deleted (subscriptions refer to them), so the product is kept. Archive its plans or rename it instead.`,
      );
    if (usage.items > 0) throw inUse(`The product has ${usage.items} inventory item(s); delete them first.`);
    // Anything else that refers to it (a payment link) makes the foreign key refuse.
    await deleteProductRow(trx, owner, id).catch((error: unknown) => {
      throw sqlState(error) === '23503' ? inUse('Payment links or other records still refer to the product; remove them first.') : error;
    });
  });
}
