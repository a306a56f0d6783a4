// The OData lists of roles and of a role's restricted keys (issue 35 §15, Till's design): wire
// name, column, type, and what a caller may do with each field.
import { defineResource } from '../../../odata/index.js';

export const roleResource = defineResource({
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    name: { column: 'name', type: 'string' },
    description: { column: 'description', type: 'string', nullable: true, sort: false },
    createdDateTime: { column: 'created_at', type: 'datetime' },
  },
});

/** The keys are `api_keys` joined to `roles`: columns are qualified by `api_keys`. */
export const restrictedKeyResource = defineResource({
  table: 'api_keys',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    keyPrefix: { column: 'key_prefix', type: 'string' },
    description: { column: 'description', type: 'string', nullable: true, sort: false },
    createdDateTime: { column: 'created_at', type: 'datetime' },
    revokedDateTime: { column: 'revoked_at', type: 'datetime', nullable: true },
  },
});
