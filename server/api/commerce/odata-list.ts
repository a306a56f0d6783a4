// An OData page at the edge: each record through its view, cut to `$select` (with the `$expand`ed
// navigations kept), with `@odata.count` and `@odata.nextLink` when the page has them.
import { type CompiledQuery, type ODataPage, selectFields } from '../../odata/index.js';

/** `{value, @odata.count?, @odata.nextLink?}` of a page, each item `view(record)` cut to `$select` ∪ `$expand`. */
export function odataList<T, V extends object>(page: ODataPage<T>, query: CompiledQuery, view: (record: T) => V): { value: Partial<V>[]; '@odata.count'?: number; '@odata.nextLink'?: string } {
  const keep = query.select ? [...query.select, ...query.expand] : undefined;
  return {
    value: page.value.map((record) => selectFields(view(record), keep)),
    ...(page['@odata.count'] === undefined ? {} : { '@odata.count': page['@odata.count'] }),
    ...(page['@odata.nextLink'] === undefined ? {} : { '@odata.nextLink': page['@odata.nextLink'] }),
  };
}
