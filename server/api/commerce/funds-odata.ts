// The edge of the funds area's OData lists: compile the request's options against the resource,
// and write a page through a view. (A shared edge helper for every OData list is being written
// alongside; the integrator folds this one into it.)
import { compileQuery, type CompiledQuery, type ODataPage, type Resource } from '../../odata/index.js';

/** The list request's OData options, checked against the resource (400 `parameter_invalid` otherwise). */
export const odataQuery = (resource: Resource, query: object): CompiledQuery => compileQuery(resource, query as Record<string, unknown>);

/** An OData page as the interface writes it: each item through its view, the count and the next link when present. */
export function odataPageOf<T, V>(result: ODataPage<T>, view: (item: T) => V): { value: V[]; '@odata.count'?: number; '@odata.nextLink'?: string } {
  const out: { value: V[]; '@odata.count'?: number; '@odata.nextLink'?: string } = { value: result.value.map(view) };
  if (result['@odata.count'] !== undefined) out['@odata.count'] = result['@odata.count'];
  if (result['@odata.nextLink'] !== undefined) out['@odata.nextLink'] = result['@odata.nextLink'];
  return out;
}
