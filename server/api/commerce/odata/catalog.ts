// The Commerce catalog's lists as OData resources, declared once: each wire field, its column,
// its type and what a caller may do with it. Stored values are lower case (`service`, `month`,
// `available`); the wire's PascalCase values map to them for `$filter`.
import { defineResource, type EnumType } from '../../../odata/index.js';
import { BILLING_TYPES } from '../wire-values.js';

/** A PascalCase enum stored in lower case (`Month` → `month`). */
const lowerCased = (values: readonly string[]): EnumType => ({ enum: values, toDb: (wire) => wire.toLowerCase() });

export const productResource = defineResource({
  table: 'products',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    merchantId: { column: 'merchant_id', type: 'int' },
    name: { column: 'name', type: 'string' },
    description: { column: 'description', type: 'string', nullable: true },
    subscriptionProductType: { column: 'type', type: lowerCased(['Service', 'Digital', 'Physical']) },
    createdDateTime: { column: 'created_at', type: 'datetime' },
    media: { column: 'media', type: 'string', filter: false, sort: false },
  },
  expand: ['Media'],
});

export const planResource = defineResource({
  table: 'p',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    merchantId: { column: 'merchant_id', type: 'int' },
    productId: { column: 'product_id', type: 'int' },
    productName: { column: 'product_name', type: 'string' },
    name: { column: 'name', type: 'string' },
    description: { column: 'description', type: 'string', nullable: true },
    details: { column: 'details', type: 'string', nullable: true, sort: false },
    status: { column: 'listing_status', type: lowerCased(['Active', 'Inactive', 'Archived']) },
    amount: { column: 'amount', type: 'decimal' },
    currency: { column: 'currency', type: 'string' },
    timeUnit: { column: 'interval', type: lowerCased(['Day', 'Week', 'Month', 'Year']) },
    timeInterval: { column: 'interval_count', type: 'int' },
    subscriptionBillingType: {
      column: 'billing_type',
      type: { enum: Object.keys(BILLING_TYPES), toDb: (wire) => BILLING_TYPES[wire as keyof typeof BILLING_TYPES] },
    },
    validFrom: { column: 'effective_valid_from', type: 'datetime' },
    validTo: { column: 'valid_to', type: 'datetime', nullable: true },
    createdDateTime: { column: 'created_at', type: 'datetime' },
  },
  expand: ['Product'],
});

export const inventoryItemResource = defineResource({
  table: 'items',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    productId: { column: 'product_id', type: 'int' },
    productName: { column: 'product_name', type: 'string' },
    serialNumber: { column: 'serial_number', type: 'string' },
    status: { column: 'status', type: lowerCased(['Available', 'Reserved', 'Rented', 'Discontinued']) },
    createdDateTime: { column: 'created_at', type: 'datetime' },
  },
});
