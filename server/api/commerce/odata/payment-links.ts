// The payment-link list as an OData resource, declared once; `$filter` compares the wire's words
// (wire-values.ts), stored in the links' own spelling.
import { defineResource, type EnumType, type FieldSpec } from '../../../odata/index.js';
import { LINK_STATUS, LINK_STYLE, LINK_TYPE, LINK_USAGE_MODE, storedOf } from '../wire-values.js';

const enumOf = (map: Record<string, string>): EnumType => ({ enum: Object.values(map), toDb: (wire) => storedOf(map, wire) });
const money = (column: string): FieldSpec => ({ column, type: 'decimal', nullable: true });
const text = (column: string, nullable = false): FieldSpec => ({ column, type: 'string', nullable });
const selectOnly = (column: string): FieldSpec => ({ column, type: 'string', filter: false, sort: false });

export const linkResource = defineResource({
  table: 'payment_links',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    code: text('code'),
    identifier: { column: 'identifier', type: 'guid' },
    name: text('name'),
    description: text('description', true),
    callToActionText: text('call_to_action_text'),
    productCode: text('product_code', true),
    productName: text('product_name', true),
    productDescription: text('product_description', true),
    unitPrice: money('unit_price'),
    quantity: { column: 'quantity', type: 'decimal' },
    currencyCode: text('currency'),
    isVariableAmount: { column: 'is_variable_amount', type: 'boolean' },
    minAmount: money('min_amount'),
    maxAmount: money('max_amount'),
    suggestedAmount: money('suggested_amount'),
    taxRate: { column: 'tax_rate', type: 'decimal' },
    taxAmount: selectOnly('tax_rate'),
    status: { column: 'status', type: enumOf(LINK_STATUS) },
    validFrom: { column: 'valid_from', type: 'datetime' },
    validTo: { column: 'valid_to', type: 'datetime', nullable: true },
    usageMode: { column: 'usage_mode', type: enumOf(LINK_USAGE_MODE) },
    maxUses: { column: 'max_uses', type: 'int', nullable: true },
    maxUsesPerCustomer: { column: 'max_uses_per_customer', type: 'int', nullable: true },
    linkType: { column: 'link_type', type: enumOf(LINK_TYPE) },
    linkStyle: { column: 'link_style', type: enumOf(LINK_STYLE) },
    buttonColor: text('button_color'),
    buttonTextColor: text('button_text_color'),
    mediaUrl: selectOnly('media_url'),
    paymentUrl: selectOnly('identifier'),
    qrCodeUrl: selectOnly('identifier'),
    embedCode: selectOnly('identifier'),
    successUrl: selectOnly('success_url'),
    cancelUrl: selectOnly('cancel_url'),
    notificationUrl: selectOnly('notification_url'),
    isPasswordProtected: { column: 'is_password_protected', type: 'boolean' },
    isEmailVerificationRequired: { column: 'is_email_verification_required', type: 'boolean' },
    isSubscriptionBased: { column: 'is_subscription_based', type: 'boolean' },
    subscriptionProductId: { column: 'subscription_product_id', type: 'int', nullable: true },
    clickCount: { column: 'click_count', type: 'int' },
    invoiceCount: { column: 'invoice_count', type: 'int' },
    completedPaymentCount: { column: 'completed_payment_count', type: 'int' },
    totalAmountCollected: { column: 'total_amount_collected', type: 'decimal' },
  },
});
