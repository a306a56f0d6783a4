// An OData page at the edge: each record through its view (cut to `$select`, with the `$expand`ed
// navigations kept, where the list takes `$select`), with `@odata.count` and `@odata.nextLink`
// when the page has them.
import { type CompiledQuery, type ODataPage, selectFields } from '../../odata/index.js';

type ODataBody<V> = { value: V[]; '@odata.count'?: number; '@odata.nextLink'?: string };

/** `{value, @odata.count?, @odata.nextLink?}` of a page, each item `view(record)` (a list without `$select`). */
export function odataPage<T, V>(page: ODataPage<T>, view: (record: T) => V): ODataBody<V> {
  return {
    value: page.value.map(view),
    ...(page['@odata.count'] === undefined ? {} : { '@odata.count': page['@odata.count'] }),
    ...(page['@odata.nextLink'] === undefined ? {} : { '@odata.nextLink': page['@odata.nextLink'] }),
  };
}

/** The same, each item cut to `$select` ∪ `$expand`. */
export function odataList<T, V extends object>(page: ODataPage<T>, query: CompiledQuery, view: (record: T) => V): ODataBody<Partial<V>> {
  const keep = query.select ? [...query.select, ...query.expand] : undefined;
  return odataPage(page, (record) => selectFields(view(record), keep));
}
