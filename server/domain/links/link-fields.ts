// A payment link's settings as a merchant changes them (create, or the subset of an update), merged
// onto the stored link and checked as a whole: the cross-field rules of the contract
// (`PaymentLinkCreateRequest`) hold for the link that results, whichever fields were sent.
import { Decimal } from 'decimal.js';
import type { PaymentLinkRow, PaymentLinkType } from './link.tables.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, currencyCode, minorUnits } from '../../shared/money.js';

/** The columns a merchant's input decides (the rest are the server's: ids, counters, times). */
export type LinkSettings = Omit<
  PaymentLinkRow,
  | 'id'
  | 'merchant_id'
  | 'livemode'
  | 'code'
  | 'identifier'
  | 'status'
  | 'click_count'
  | 'invoice_count'
  | 'completed_payment_count'
  | 'total_amount_collected'
  | 'created_at'
  | 'updated_at'
  | 'notification_secret'
  | 'password_hash'
  | 'is_password_protected'
  | 'is_subscription_based'
>;

/**
 * What a merchant sets on a link (create: name and currency at least; update: only what was sent):
 * the settings it changes (null clears, absent keeps), its status, and the protections kept apart
 * from the settings (the password is hashed, the subscription flag follows the link type).
 */
export interface LinkChanges extends Partial<LinkSettings> {
  status?: 'draft' | 'active' | undefined;
  is_password_protected?: boolean | undefined;
  password?: string | undefined;
  is_subscription_based?: boolean | undefined;
  notification_secret?: string | undefined;
}

const CALL_TO_ACTION: Record<PaymentLinkType, string> = { standard: 'Pay now', donation: 'Donate', subscription: 'Subscribe' };

/** A new link's settings before its changes: Till's defaults. */
export function defaultSettings(changes: LinkChanges, now: Date): LinkSettings {
  const subscription = changes.is_subscription_based === true || changes.link_type === 'subscription';
  const linkType: PaymentLinkType = changes.link_type ?? (subscription ? 'subscription' : 'standard');
  return {
    name: '',
    description: null,
    call_to_action_text: CALL_TO_ACTION[linkType],
    product_code: null,
    product_name: null,
    product_description: null,
    unit_price: null,
    quantity: '1',
    currency: 'USD',
    is_variable_amount: false,
    min_amount: null,
    max_amount: null,
    suggested_amount: null,
    tax_rate: '0',
    valid_from: now,
    valid_to: null,
    usage_mode: 'multi_use',
    max_uses: null,
    max_uses_per_customer: null,
    link_type: linkType,
    link_style: 'button',
    button_color: '#1A73E8',
    button_text_color: '#FFFFFF',
    media_url: null,
    success_url: null,
    cancel_url: null,
    notification_url: null,
    is_email_verification_required: false,
    subscription_product_id: null,
  };
}

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });
const missing = (param: string, message: string) => new AppError('parameter_missing', { param, message });

/** The changes laid over `base`: the settings sent change, the others keep their value. */
export function mergeSettings(base: LinkSettings, changes: LinkChanges): LinkSettings {
  const merged: LinkSettings = { ...base };
  for (const key of Object.keys(base) as (keyof LinkSettings)[]) {
    if (changes[key] !== undefined) Object.assign(merged, { [key]: changes[key] });
  }
  if (changes.currency !== undefined) merged.currency = currencyCode(changes.currency, 'currencyCode');
  return withType(merged, changes);
}

/** `linkType` Subscription and `isSubscriptionBased` go together: send either, the other follows. */
function withType(s: LinkSettings, changes: LinkChanges): LinkSettings {
  const subscriptionBased = changes.is_subscription_based;
  if (subscriptionBased === true && changes.link_type !== undefined && changes.link_type !== 'subscription')
    throw invalid('linkType', 'A subscription-based link has linkType Subscription.');
  if (subscriptionBased === false && changes.link_type === 'subscription')
    throw invalid('isSubscriptionBased', 'A link of linkType Subscription is subscription-based.');
  if (subscriptionBased === true) return { ...s, link_type: 'subscription' };
  if (subscriptionBased === false && s.link_type === 'subscription') return { ...s, link_type: 'standard' };
  return s;
}

/** A money amount of the link: more than zero (or zero when `zero`), no more decimals than the currency has. */
function money(value: string | null, currency: string, param: string, zero = false): string | null {
  if (value === null) return null;
  const fixed = amountToDecimal(value, currency, param);
  if (new Decimal(fixed).lessThan(0) || (!zero && new Decimal(fixed).isZero())) throw invalid(param, `${param} must be more than zero.`);
  return fixed;
}

function checkAmounts(s: LinkSettings): LinkSettings {
  const subscription = s.link_type === 'subscription';
  const unit = subscription || s.is_variable_amount ? null : money(s.unit_price, s.currency, 'unitPrice');
  if (!subscription && !s.is_variable_amount && unit === null)
    throw missing('unitPrice', 'unitPrice is required unless the link is variable-amount or subscription-based.');
  if (subscription && s.is_variable_amount) throw invalid('isVariableAmount', "A subscription link charges its plans' prices; it cannot be variable-amount.");
  if (new Decimal(s.quantity).lessThanOrEqualTo(0)) throw invalid('quantity', 'quantity must be more than zero.');
  if (new Decimal(s.tax_rate).greaterThan(100))
    throw new AppError('parameter_invalid', { param: 'taxRate', message: 'taxRate is a percentage from 0 to 100.' });
  const [min, max, suggested] = [
    money(s.min_amount, s.currency, 'minAmount'),
    money(s.max_amount, s.currency, 'maxAmount'),
    money(s.suggested_amount, s.currency, 'suggestedAmount'),
  ];
  const above = (a: string | null, b: string | null) => a !== null && b !== null && new Decimal(a).greaterThan(b);
  if (above(min, max)) throw invalid('minAmount', 'minAmount must not be greater than maxAmount.');
  if (above(min, suggested)) throw invalid('suggestedAmount', 'suggestedAmount must not be less than minAmount.');
  if (above(suggested, max)) throw invalid('suggestedAmount', 'suggestedAmount must not be greater than maxAmount.');
  return {
    ...s,
    unit_price: unit,
    min_amount: min,
    max_amount: max,
    suggested_amount: suggested,
    quantity: new Decimal(s.quantity).toFixed(),
    tax_rate: new Decimal(s.tax_rate).toFixed(),
  };
}

/**
 * The link's settings checked as a whole (400 `validation_error` or `parameter_missing` naming the
 * field), normalized: amounts in the currency's digits, a `SingleUse` link's `maxUses` 1, no unit
 * price on variable-amount and subscription links.
 */
export function checkSettings(s: LinkSettings): LinkSettings {
  const checked = checkAmounts(s);
  if (checked.valid_to !== null && checked.valid_to.getTime() <= checked.valid_from.getTime()) throw invalid('validTo', 'validTo must be after validFrom.');
  if (checked.link_type === 'subscription' && checked.subscription_product_id === null)
    throw missing('subscriptionProductId', 'A subscription link needs subscriptionProductId: the product whose plans it offers.');
  if (checked.link_type !== 'subscription' && checked.subscription_product_id !== null)
    throw invalid('subscriptionProductId', 'Only a subscription link offers a subscription product.');
  return { ...checked, max_uses: checked.usage_mode === 'single_use' ? 1 : checked.max_uses };
}

/** Tax on one payment at the fixed price: `unitPrice` x `quantity`, then x `taxRate` / 100, each rounded half away from zero to the currency. */
export function fixedPriceTax(link: Pick<PaymentLinkRow, 'unit_price' | 'quantity' | 'tax_rate' | 'currency'>): string {
  const digits = minorUnits(link.currency);
  if (link.unit_price === null) return new Decimal(0).toFixed(digits);
  const gross = new Decimal(link.unit_price).times(link.quantity).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  return gross.times(link.tax_rate).dividedBy(100).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed(digits);
}
