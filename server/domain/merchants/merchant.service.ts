import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken } from '../../shared/crypto.js';
import { keyDisplayPrefix, newApiKey } from './keys.js';
import type { Merchant, PaymentOption, RatePlan } from './merchant.tables.js';
import { AppError } from '../../shared/errors.js';
import { isUniqueViolation } from '../../db/errors.js';
import {
  countLiveSandboxes,
  countMerchantRows,
  findActiveKeyByHash,
  findMerchant,
  findMerchantIfAny,
  findPageKey,
  insertApiKeys,
  insertMerchant,
  insertPageKey,
  insertSandboxMerchant,
  lockSandboxParent,
  slugTaken,
} from './merchant.repository.js';
import type { Tenant } from '../../shared/tenant.js';
import { currencyCode } from '../../shared/money.js';
import { ensurePrimaryLocation } from './location.service.js';

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
  { id: 5, code: 'account_balance', name: 'Account balance', method: 'AccountBalance', canHold: false, holdDays: null, enabled: true },
];

/** The slug a name gives: lower-case letters, digits and single hyphens, at most `max` characters, at least 3 (the contract's pattern). */
function slugify(name: string, max = 40): string {
  const base = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '');
  if (base.length === 0) return 'merchant';
  return base.length < 3 ? `${base}-${randomToken(4).toLowerCase()}` : base;
}

const slugInUse = (slug: string) => new AppError('parameter_invalid', { param: 'slug', message: `The slug '${slug}' is already in use.` });

/** A merchant to create: its name, branding and defaults, and what to do in the same transaction. */
export interface MerchantToCreate {
  name: string;
  ratePlan?: RatePlan;
  email?: string | null;
  /** Shown on its hosted pages: an https image URL. */
  logoUrl?: string | null;
  /** Button colour of its hosted pages, `#rrggbb`. */
  brandColor?: string | null;
  /** Its handle in payment-link URLs; made from the name when omitted. A slug in use is refused. */
  slug?: string;
  website?: string | null;
  /** ISO 3166-1 alpha-2; `US` when omitted. */
  country?: string;
  /** ISO 4217; `USD` when omitted. */
  defaultCurrency?: string;
  settings?: { messageCheckoutCustomers?: boolean; sendCheckoutReceipts?: boolean };
  /** Run in the same transaction once the merchant exists (its owner, its first location). */
  also?: (trx: Db, merchant: Merchant) => Promise<void>;
}

function checkProfile(input: MerchantToCreate): void {
  const invalid = (param: string, message: string) => new AppError('parameter_invalid', { param, message });
  if (input.logoUrl != null && !(/^https:\/\/[^\s]+$/.test(input.logoUrl) && input.logoUrl.length <= 2048))
    throw invalid('logoUrl', 'A logo URL must be an https URL of at most 2048 characters.');
  if (input.brandColor != null && !/^#[0-9a-fA-F]{6}$/.test(input.brandColor))
    throw invalid('brandColor', 'A brand colour must be a hex colour such as #0a7d33.');
  if (input.website != null && !/^https?:\/\/[^\s]+$/.test(input.website)) throw invalid('website', 'A website must be an http or https URL.');
}

/** The slug asked for (refused when in use), or one made from the name (a random suffix when that is in use). */
async function slugFor(db: Db, name: string, wanted: string | undefined): Promise<string> {
  if (wanted !== undefined) {
    if (await slugTaken(db, wanted)) throw slugInUse(wanted);
    return wanted;
  }
  const slug = slugify(name);
  return (await slugTaken(db, slug)) ? `${slug}-${randomToken(6).toLowerCase()}` : slug;
}

/** Creates a merchant and its four keys in one transaction. The keys are returned once; only hashes are kept. */
export async function createMerchant(
  db: Kysely<Database>,
  clock: Clock,
  input: MerchantToCreate,
): Promise<{ merchant: Merchant; credentials: MerchantCredentials }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200)
    throw new AppError('parameter_invalid', { param: 'name', message: 'A merchant name must have 1 to 200 characters.' });
  checkProfile(input);
  return db.transaction().execute(async (trx) => {
    const now = clock.now();
    const slug = await slugFor(trx, name, input.slug);
    const merchant = await insertMerchant(trx, {
      name,
      slug,
      email: input.email ?? null,
      logo_url: input.logoUrl ?? null,
      brand_color: input.brandColor?.toLowerCase() ?? null,
      rate_plan: input.ratePlan ?? 'standard',
      payment_options: JSON.stringify(defaultPaymentOptions),
      created_at: now,
      website: input.website ?? null,
      ...(input.country ? { country: input.country } : {}),
      ...(input.defaultCurrency ? { default_currency: currencyCode(input.defaultCurrency, 'defaultCurrency') } : {}),
      ...(input.settings?.messageCheckoutCustomers !== undefined ? { message_checkout_customers: input.settings.messageCheckoutCustomers } : {}),
      ...(input.settings?.sendCheckoutReceipts !== undefined ? { send_checkout_receipts: input.settings.sendCheckoutReceipts } : {}),
    }).catch((error: unknown) => {
      // Two creations of one slug at once: the loser is told as if it had looked first.
      throw isUniqueViolation(error, 'merchants_slug_key') ? slugInUse(slug) : error;
    });
    await input.also?.(trx, merchant);
    await ensurePrimaryLocation(trx, merchant);
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
    await insertApiKeys(trx, rows);
    return { merchant, credentials: { merchantId: merchant.id, keys } };
  });
}

/** How many sandbox merchants a merchant may have alive at a time, and how long one lives (real time). */
export const SANDBOX_MERCHANT_LIMIT = 50;
export const SANDBOX_MERCHANT_LIFETIME_SECONDS = 3600;

/** A sandbox merchant and its test keys, shown once. */
export interface SandboxMerchant {
  merchant: Merchant;
  keys: MerchantKeys['test'];
}

/**
 * Makes a throwaway sandbox merchant for `parentId` (`POST /v1/test-helpers/merchants`): test keys
 * only (it can never take real money), the parent's rate plan, the default payment options,
 * nothing else. It stops authenticating an hour later, in real time. A sandbox merchant cannot
 * make one (403), and a merchant has at most 20 alive (409). It takes the parent's country and
 * default currency (or `defaultCurrency`), and a primary location named after it. With `cardHolds`
 * false none of its options can hold a card.
 */
export async function createSandboxMerchant(
  db: Kysely<Database>,
  parentId: number,
  label?: string,
  defaultCurrency?: string,
  cardHolds = true,
): Promise<SandboxMerchant> {
  const currency = defaultCurrency === undefined ? undefined : currencyCode(defaultCurrency, 'defaultCurrency');
  return db.transaction().execute(async (trx) => {
    await lockSandboxParent(trx, parentId);
    const parent = await findMerchant(trx, parentId);
    if (parent.parent_merchant_id !== null)
      throw new AppError('permission_denied', { message: "A sandbox merchant cannot make sandbox merchants. Use your own merchant's sk_test_ key." });
    if ((await countLiveSandboxes(trx, parentId)) >= SANDBOX_MERCHANT_LIMIT) {
      throw new AppError('invalid_state', {
        message: `Your merchant has ${SANDBOX_MERCHANT_LIMIT} sandbox merchants alive, the most it may have. Each expires an hour after it was made; try again then.`,
      });
    }
    const name = `${parent.name} sandbox${label?.trim() ? `: ${label.trim()}` : ''}`;
    const slug = `${slugify(parent.name, 30)}-sandbox-${randomToken(8).toLowerCase()}`;
    const merchant = await insertSandboxMerchant(
      trx,
      {
        name,
        slug,
        email: null,
        logo_url: null,
        rate_plan: parent.rate_plan,
        payment_options: JSON.stringify(cardHolds ? defaultPaymentOptions : defaultPaymentOptions.map((o) => ({ ...o, canHold: false }))),
        parent_merchant_id: parent.id,
        country: parent.country,
        default_currency: currency ?? parent.default_currency,
      },
      SANDBOX_MERCHANT_LIFETIME_SECONDS,
    );
    await ensurePrimaryLocation(trx, merchant);
    const keys = { secret: newApiKey('secret', false), publishable: newApiKey('publishable', false) };
    await insertApiKeys(
      trx,
      (['secret', 'publishable'] as const).map((kind) => ({
        merchant_id: merchant.id,
        kind,
        livemode: false,
        key_hash: hashSecret(keys[kind]),
        key_prefix: keyDisplayPrefix(keys[kind]),
        created_at: merchant.created_at,
      })),
    );
    return { merchant, keys };
  });
}

/** The merchant and key behind a presented key, or undefined when it is unknown or revoked. */
export const findActiveKey = (db: Kysely<Database>, presented: string) => findActiveKeyByHash(db, hashSecret(presented));

/** The same, by the key's hash: for a holder that kept only the hash and checks the key again (the notification hub). */
export const findActiveKeyWithHash = (db: Kysely<Database>, keyHash: string) => findActiveKeyByHash(db, keyHash);

export const countMerchants = (db: Kysely<Database>): Promise<number> => countMerchantRows(db);

/** The merchant a tenant acts for: its name, logo, settings and payment options. */
export const getMerchant = (db: Db, merchantId: number): Promise<Merchant> => findMerchant(db, merchantId);

/** The merchant of an id, or undefined (a public look-up runs it whether or not it found an object, so both answers take the same work). */
export const findMerchantById = (db: Db, merchantId: number): Promise<Merchant | undefined> => findMerchantIfAny(db, merchantId);

/** Whether any enabled card option of the merchant can hold a card. */
export const holdCapable = (merchant: Merchant): boolean => merchant.payment_options.some((o) => o.enabled && o.canHold && o.method === 'CreditCard');

/**
 * The publishable key Till's hosted pages use for the tenant: made on first use, kept as text
 * (publishable keys are public; only this one is kept so). Revoking it makes a new one.
 */
export async function hostedPageKey(db: Db, clock: Clock, tenant: Tenant): Promise<string> {
  const found = await findPageKey(db, tenant.merchantId, tenant.livemode);
  if (found) return found;
  const key = newApiKey('publishable', tenant.livemode);
  await insertPageKey(db, {
    merchant_id: tenant.merchantId,
    kind: 'publishable',
    livemode: tenant.livemode,
    key_hash: hashSecret(key),
    key_prefix: keyDisplayPrefix(key),
    created_at: clock.now(),
    page_key: key,
  });
  return (await findPageKey(db, tenant.merchantId, tenant.livemode))!;
}
