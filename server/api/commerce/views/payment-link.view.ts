// A payment link as the Commerce interface shows it: decimal strings in the currency's digits,
// PascalCase values, its page, QR code and embed snippet; the merchant's view with its analytics,
// the public view with the merchant and the plans on offer.
import { Decimal } from 'decimal.js';
import type { components } from '../../../../generated/commerce.js';
import type { Plan } from '../../../domain/catalog/catalog.tables.js';
import type { Merchant } from '../../../domain/merchants/merchant.tables.js';
import type { PaymentLinkRow } from '../../../domain/links/link.tables.js';
import { fixedPriceTax, type LinkChanges } from '../../../domain/links/link-fields.js';
import { minorUnits } from '../../../shared/money.js';
import { escapeHtml } from '../../../pages/kit/html.js';
import { LINK_STATUS, LINK_STYLE, LINK_TYPE, LINK_USAGE_MODE, storedOf } from '../wire-values.js';
import { catalogPlanView } from './catalog.view.js';

type Schemas = components['schemas'];

const money = (value: string | null, currency: string): string | null => (value === null ? null : new Decimal(value).toFixed(minorUnits(currency)));
const plain = (value: string) => new Decimal(value).toFixed();

/** The hosted page of a link. */
export const linkPageUrl = (baseUrl: string, link: Pick<PaymentLinkRow, 'identifier'>): string => `${baseUrl}/pay/link/${link.identifier}`;
/** The path of a link's QR code (public). */
export const linkQrPath = (link: Pick<PaymentLinkRow, 'identifier'>): string => `/v1/PaymentLink/qr/${link.identifier}`;

/** The HTML snippet of a link in its style: a button, a text link or the QR image, each opening the link's page in a new tab. */
export function embedCode(link: PaymentLinkRow, baseUrl: string): string {
  const href = escapeHtml(linkPageUrl(baseUrl, link));
  const text = escapeHtml(link.call_to_action_text);
  if (link.link_style === 'link') return `<a href="${href}" target="_blank" rel="noopener">${text}</a>`;
  if (link.link_style === 'qr_code') {
    return `<a href="${href}" target="_blank" rel="noopener"><img src="${escapeHtml(baseUrl + linkQrPath(link))}" alt="${text}" width="200" height="200"></a>`;
  }
  const style = `display:inline-block;padding:12px 24px;border-radius:6px;background:${link.button_color};color:${link.button_text_color};font:600 16px sans-serif;text-decoration:none`;
  return `<a href="${href}" target="_blank" rel="noopener" style="${style}">${text}</a>`;
}

function coreView(link: PaymentLinkRow, baseUrl: string): Schemas['PaymentLinkCore'] {
  const c = link.currency;
  return {
    id: link.id,
    code: link.code,
    identifier: link.identifier,
    name: link.name,
    description: link.description,
    callToActionText: link.call_to_action_text,
    productCode: link.product_code,
    productName: link.product_name,
    productDescription: link.product_description,
    unitPrice: money(link.unit_price, c),
    quantity: plain(link.quantity),
    currencyCode: c,
    isVariableAmount: link.is_variable_amount,
    minAmount: money(link.min_amount, c),
    maxAmount: money(link.max_amount, c),
    suggestedAmount: money(link.suggested_amount, c),
    taxRate: plain(link.tax_rate),
    taxAmount: fixedPriceTax(link),
    status: LINK_STATUS[link.status] as Schemas['PaymentLinkStatus'],
    validFrom: link.valid_from.toISOString(),
    validTo: link.valid_to ? link.valid_to.toISOString() : null,
    usageMode: LINK_USAGE_MODE[link.usage_mode] as Schemas['PaymentLinkUsageMode'],
    maxUses: link.max_uses,
    maxUsesPerCustomer: link.max_uses_per_customer,
    linkType: LINK_TYPE[link.link_type] as Schemas['PaymentLinkType'],
    linkStyle: LINK_STYLE[link.link_style] as Schemas['PaymentLinkStyle'],
    buttonColor: link.button_color,
    buttonTextColor: link.button_text_color,
    mediaUrl: link.media_url,
    paymentUrl: linkPageUrl(baseUrl, link),
    qrCodeUrl: linkQrPath(link),
    embedCode: embedCode(link, baseUrl),
    successUrl: link.success_url,
    cancelUrl: link.cancel_url,
    isPasswordProtected: link.password_hash !== null,
    isEmailVerificationRequired: link.is_email_verification_required,
    isSubscriptionBased: link.link_type === 'subscription',
    subscriptionProductId: link.subscription_product_id,
  };
}

/** The merchant's view, with the analytics; `generatedSecret` only in the answer that generated it. */
export function paymentLinkView(link: PaymentLinkRow, baseUrl: string, generatedSecret?: string): Schemas['PaymentLink'] {
  return {
    ...coreView(link, baseUrl),
    notificationUrl: link.notification_url,
    ...(generatedSecret === undefined ? {} : { notificationSecret: generatedSecret }),
    clickCount: link.click_count,
    invoiceCount: link.invoice_count,
    completedPaymentCount: link.completed_payment_count,
    totalAmountCollected: money(link.total_amount_collected, link.currency)!,
  };
}

/** A plan a subscription link offers (an active one), as the Commerce catalog shows it. */
export const offeredPlanView = (plan: Plan, productName: string): Schemas['SubscriptionPlan'] =>
  catalogPlanView({ ...plan, product_name: productName, listing_status: 'active', effective_valid_from: plan.valid_from ?? plan.created_at });

/** The public view, for the hosted page: no analytics, no notification URL; the merchant and the plans on offer. */
export function publicLinkView(
  link: PaymentLinkRow,
  merchant: Merchant,
  plans: { plan: Plan; productName: string }[],
  baseUrl: string,
): Schemas['PaymentLinkPublic'] {
  return {
    ...coreView(link, baseUrl),
    merchant: { name: merchant.name, logoUrl: merchant.logo_url },
    plans: plans.map((p) => offeredPlanView(p.plan, p.productName)),
  };
}

type CreateBody = Schemas['PaymentLinkCreateRequest'];
type UpdateBody = Schemas['PaymentLinkUpdateRequest'];

const stored = <S extends string>(map: Record<S, string>, wire: string | undefined): S | undefined => (wire === undefined ? undefined : storedOf(map, wire));

/** A create or update body as the domain's changes: the link's columns, stored values for the enums, dates as Date. */
export function linkChanges(body: CreateBody | UpdateBody): LinkChanges {
  const b = body as CreateBody & UpdateBody;
  return {
    name: b.name,
    description: b.description,
    product_code: b.productCode,
    product_name: b.productName,
    product_description: b.productDescription,
    unit_price: b.unitPrice,
    quantity: b.quantity,
    currency: b.currencyCode,
    call_to_action_text: b.callToActionText,
    is_variable_amount: b.isVariableAmount,
    min_amount: b.minAmount,
    max_amount: b.maxAmount,
    suggested_amount: b.suggestedAmount,
    tax_rate: b.taxRate,
    status: b.status === undefined ? undefined : b.status === 'Draft' ? 'draft' : 'active',
    valid_from: b.validFrom === undefined ? undefined : new Date(b.validFrom),
    valid_to: b.validTo === undefined || b.validTo === null ? b.validTo : new Date(b.validTo),
    usage_mode: stored(LINK_USAGE_MODE, b.usageMode),
    max_uses: b.maxUses,
    max_uses_per_customer: b.maxUsesPerCustomer,
    link_type: stored(LINK_TYPE, b.linkType),
    link_style: stored(LINK_STYLE, b.linkStyle),
    button_color: b.buttonColor,
    button_text_color: b.buttonTextColor,
    media_url: b.mediaUrl,
    success_url: b.successUrl,
    cancel_url: b.cancelUrl,
    notification_url: b.notificationUrl,
    notification_secret: b.notificationSecret,
    is_password_protected: b.isPasswordProtected,
    password: b.password,
    is_email_verification_required: b.isEmailVerificationRequired,
    is_subscription_based: b.isSubscriptionBased,
    subscription_product_id: b.subscriptionProductId,
  };
}
