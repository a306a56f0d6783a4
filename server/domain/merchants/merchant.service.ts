import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import { keyDisplayPrefix, newApiKey } from './keys.js';
import type { Merchant, PaymentOption, RatePlan } from '../../db/tables/merchants.js';

/** The four keys of a merchant, shown once when they are made. */
export interface MerchantKeys {
  test: { secret: string; publishable: string };
  live: { secret: string; publishable: string };
}

/** The JSON that `npm run merchant -- create --json` prints and the first start writes. */
export interface MerchantCredentials {
  merchantId: number;
  keys: MerchantKeys;
}

/** The payment options a new merchant starts with. Visa and Mastercard can hold a card. */
export const defaultPaymentOptions: PaymentOption[] = [
  { id: 1, code: 'card_visa', name: 'Visa', method: 'CreditCard', canHold: true, holdDays: null, enabled: true },
  { id: 2, code: 'card_mastercard', name: 'Mastercard', method: 'CreditCard', canHold: true, holdDays: null, enabled: true },
  { id: 3, code: 'wallet_qr', name: 'Wallet QR', method: 'GatewayWallet', canHold: false, holdDays: null, enabled: true },
  { id: 4, code: 'bank_transfer', name: 'Bank transfer', method: 'BankTransfer', canHold: false, holdDays: null, enabled: true },
];

function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .slice(0, 40);
  return base || 'merchant';
}

export interface CreateMerchantInput {
  name: string;
  ratePlan?: RatePlan;
  email?: string | null;
}

/** Creates a merchant and its four keys in one transaction. The keys are returned once; only hashes are kept. */
export async function createMerchant(db: Kysely<Database>, clock: Clock, input: CreateMerchantInput): Promise<{ merchant: Merchant; credentials: MerchantCredentials }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) throw new Error('A merchant name must have 1 to 200 characters.');
  return db.transaction().execute(async (trx) => {
    const now = clock.now();
    let slug = slugify(name);
    const taken = await trx.selectFrom('merchants').select('id').where('slug', '=', slug).executeTakeFirst();
    if (taken) slug = `${slug}-${randomToken(6).toLowerCase()}`;
    const merchant = await trx
      .insertInto('merchants')
      .values({
        name,
        slug,
        email: input.email ?? null,
        logo_url: null,
        rate_plan: input.ratePlan ?? 'standard',
        payment_options: JSON.stringify(defaultPaymentOptions),
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const keys: MerchantKeys = {
      test: { secret: newApiKey('secret', false), publishable: newApiKey('publishable', false) },
      live: { secret: newApiKey('secret', true), publishable: newApiKey('publishable', true) },
    };
    const rows = (['test', 'live'] as const).flatMap((mode) =>
      (['secret', 'publishable'] as const).map((kind) => {
        const key = keys[mode][kind];
        return { merchant_id: merchant.id, kind, livemode: mode === 'live', key_hash: hashSecret(key), key_prefix: keyDisplayPrefix(key), created_at: now };
      }),
    );
    await trx.insertInto('api_keys').values(rows).execute();
    return { merchant, credentials: { merchantId: merchant.id, keys } };
  });
}

/** The merchant and key behind a presented key, or undefined when it is unknown or revoked. */
export async function findActiveKey(db: Kysely<Database>, presented: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .select(['api_keys.id as keyId', 'api_keys.kind', 'api_keys.livemode', 'api_keys.merchant_id as merchantId', 'merchants.rate_plan as ratePlan'])
    .where('api_keys.key_hash', '=', hashSecret(presented))
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function countMerchants(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('merchants').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
