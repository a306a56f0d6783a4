// An OData page at the edge: the domain's list page with each record through its view (cut to
// `$select`, with the `$expand`ed navigations kept, where the list takes `$select`), with
// `@odata.count` and `@odata.nextLink` when the page has them.
import { type CompiledQuery, type ListPage, odataPage, selectFields } from '../../odata/index.js';

type ODataBody<V> = { value: V[]; '@odata.count'?: number; '@odata.nextLink'?: string };

/** `{value, @odata.count?, @odata.nextLink?}` of a page, each item `view(record)` (a list without `$select`). */
export function odataBody<T, V>(page: ListPage<T>, query: CompiledQuery, basePath: string, view: (record: T) => V): ODataBody<V> {
  const body = odataPage(query, page, basePath);
  return {
    value: body.value.map(view),
    ...(body['@odata.count'] === undefined ? {} : { '@odata.count': body['@odata.count'] }),
    ...(body['@odata.nextLink'] === undefined ? {} : { '@odata.nextLink': body['@odata.nextLink'] }),
  };
}

/** The same, each item cut to `$select` ∪ `$expand`. */
export function odataList<T, V extends object>(page: ListPage<T>, query: CompiledQuery, basePath: string, view: (record: T) => V): ODataBody<Partial<V>> {
  const keep = query.select ? [...query.select, ...query.expand] : undefined;
  return odataBody(page, query, basePath, (record) => selectFields(view(record), keep));
}
