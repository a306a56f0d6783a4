// The OData engine (L0): parse a list's query options, compile them to Kysely, page the result.
export { defineResource, type EnumType, type FieldSpec, type FieldType, type Resource, type ResourceSpec } from './resource.js';
export {
  compileQuery,
  type CompiledQuery,
  countStatement,
  type ListPage,
  listPage,
  type ListQuery,
  nextLink,
  type ODataPage,
  odataPage,
  page,
  selectFields,
} from './query.js';
export { escapeLike } from './filter-compile.js';
