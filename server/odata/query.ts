// compileQuery: the raw query of an OData list → what to apply to a Kysely query that the caller
// has already scoped to its tenant (`ofTenant`). A repository sees only its column-level half
// (ListQuery) and answers a ListPage; the edge turns that into the wire's page (odataPage) with its
// count and next link.
import { type RawBuilder, type SelectQueryBuilder, sql, type SqlBool } from 'kysely';
import type { Page } from '../shared/pagination.js';
import { compileFilter } from './filter-compile.js';
import { parseFilter } from './filter-parse.js';
import { optionValues, parseCount, parseExpand, parseOrderBy, parseSelect, parseSkip, parseTop, type SortKey } from './options.js';
import { columnOf, type Resource } from './resource.js';

/** A query builder of any table shape: the engine adds conditions, order and paging only. */
type AnyQuery<O> = SelectQueryBuilder<any, any, O>;

export interface CompiledQuery {
  /** The caller's $filter as one parenthesized condition, or undefined when absent. */
  filter: RawBuilder<SqlBool> | undefined;
  orderBy: SortKey[];
  top: number;
  skip: number;
  count: boolean;
  /** Wire names to keep in each item, or undefined for all. */
  select: string[] | undefined;
  expand: string[];
  /** The options as sent, kept for the next link. */
  options: Partial<Record<string, string>>;
  /** Adds the filter (ANDed with whatever the caller's query already holds) and the order. */
  where<O>(qb: AnyQuery<O>): AnyQuery<O>;
  /** `where`, then order, offset and limit (one extra row, to know whether more follow). */
  apply<O>(qb: AnyQuery<O>): AnyQuery<O>;
}

/**
 * What a repository needs of a compiled list: the condition and the order in columns, the page's
 * size, whether to count. No wire name reaches it; the resource that named the columns is the edge's.
 */
export type ListQuery = Pick<CompiledQuery, 'where' | 'apply' | 'count' | 'top'>;

/** One page of rows (`hasMore`: rows follow it), and the count of every matching row when it was asked for. */
export interface ListPage<T> extends Page<T> {
  total: number | undefined;
}

/** Compiles the OData options of a list request; any invalid option is a 400 `parameter_invalid`. */
export function compileQuery(resource: Resource, rawQuery: Record<string, unknown>): CompiledQuery {
  const options = optionValues(rawQuery);
  const filter = options.$filter === undefined ? undefined : compileFilter(resource, parseFilter(options.$filter));
  const orderBy = parseOrderBy(resource, options.$orderby);
  const top = parseTop(resource, options.$top);
  const skip = parseSkip(options.$skip);
  const compiled: CompiledQuery = {
    filter,
    orderBy,
    top,
    skip,
    count: parseCount(options.$count),
    select: parseSelect(resource, options.$select),
    expand: parseExpand(resource, options.$expand),
    options,
    where: (qb) => (filter ? qb.where(filter) : qb),
    apply(qb) {
      let q = compiled.where(qb);
      for (const key of orderBy) {
        const column = sql.ref(columnOf(resource, resource.fields[key.field]!));
        q = q.orderBy(key.direction === 'asc' ? sql`${column} asc` : sql`${column} desc`);
      }
      return q.offset(skip).limit(top + 1);
    },
  };
  return compiled;
}

/** The same request's next page, as an origin-relative URL. */
export function nextLink(basePath: string, query: CompiledQuery): string {
  const params: Partial<Record<string, string>> = { ...query.options, $top: String(query.top), $skip: String(query.skip + query.top) };
  const order = ['$filter', '$orderby', '$select', '$expand', '$top', '$skip', '$count'] as const;
  const parts = order.filter((k) => params[k] !== undefined).map((k) => `${k}=${encodeURIComponent(params[k]!)}`);
  return `${basePath}?${parts.join('&')}`;
}

export interface ODataPage<T> {
  value: T[];
  '@odata.count'?: number;
  '@odata.nextLink'?: string;
}

/**
 * The statement that counts every row matching the tenant and the filter: `count(*)` alone, with no
 * columns, order, offset or limit, so PostgreSQL can answer it from the narrowest index.
 */
export function countStatement<O>(query: ListQuery, scoped: AnyQuery<O>): AnyQuery<{ count: string | number }> {
  return query
    .where(scoped)
    .clearSelect()
    .clearOrderBy()
    .select(sql<string>`count(*)`.as('count'));
}

/**
 * Runs one page of `scoped` (a query the caller has already scoped to its tenant and given its
 * columns) and, when asked, the count of every matching row (ignoring $top and $skip). The two
 * statements run at once (on two pool connections), so a counted page waits for the slower one only.
 */
export async function listPage<O>(query: ListQuery, scoped: AnyQuery<O>): Promise<ListPage<O>> {
  const [rows, counted] = await Promise.all([
    query.apply(scoped).execute() as Promise<O[]>,
    query.count ? countStatement(query, scoped).executeTakeFirst() : undefined,
  ]);
  return { data: rows.slice(0, query.top), hasMore: rows.length > query.top, total: query.count ? Number(counted?.count ?? 0) : undefined };
}

/** A list page as the wire's: `value`, `@odata.count` when it was asked for, `@odata.nextLink` while more follow. */
export function odataPage<T>(query: CompiledQuery, page: ListPage<T>, basePath: string): ODataPage<T> {
  const result: ODataPage<T> = { value: page.data };
  if (page.total !== undefined) result['@odata.count'] = page.total;
  if (page.hasMore && query.top > 0) result['@odata.nextLink'] = nextLink(basePath, query);
  return result;
}

/** One page of `scoped` as the wire's (listPage, then odataPage). */
export async function page<O>(query: CompiledQuery, scoped: AnyQuery<O>, basePath: string): Promise<ODataPage<O>> {
  return odataPage(query, await listPage(query, scoped), basePath);
}

/** Keeps only the `$select`ed wire fields of an item (all of them when nothing was selected). */
export function selectFields<T extends object>(item: T, select: string[] | undefined): Partial<T> {
  if (!select) return item;
  return Object.fromEntries(Object.entries(item).filter(([k]) => select.includes(k))) as Partial<T>;
}
