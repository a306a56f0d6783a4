// Async iteration over every list of both interfaces, typed from the generated contracts.
//
//   Checkout & Billing: `{ object: 'list', data, hasMore }`, bare or inside the envelope
//   (`{ success, data: { data, hasMore } }`); the next page is `startingAfter` = the last id.
//   Commerce (OData): `{ value, '@odata.nextLink'? }`; the next page is the nextLink, or, without
//   one, `$skip` advanced by the page when a full `$top` page came back.
import { tillErrorFrom } from './errors.js';

/** The JSON body of an operation's 200 answer. */
type OkBody<Op> = Op extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/** The item type of a list body, whichever of the three list shapes it has. */
export type ListItem<Body> = Body extends { value: (infer T)[] }
  ? T
  : Body extends { data: { data: (infer T)[]; hasMore: boolean } }
    ? T
    : Body extends { data: (infer T)[]; hasMore: boolean }
      ? T
      : never;

/** The paths whose GET answers a list: the ones `list()` accepts. */
export type ListPath<Paths> = {
  [P in keyof Paths]: Paths[P] extends { get: infer Op } ? ([ListItem<OkBody<Op>>] extends [never] ? never : P) : never;
}[keyof Paths];

/** The item type of the list at `P`: `ListItemOf<CheckoutPaths, '/v1/plans'>` is a plan. */
export type ListItemOf<Paths, P extends keyof Paths> = Paths[P] extends { get: infer Op } ? ListItem<OkBody<Op>> : never;

/** Every item of a list, page by page, fetched as the loop asks for them. */
export interface TillList<T> extends AsyncIterable<T> {
  /** Every non-empty page, as the arrays of its items. */
  pages(): AsyncIterable<T[]>;
  /** Collects the items into an array, up to `limit` of them (default: all). */
  toArray(options?: { limit?: number }): Promise<T[]>;
}

/** One GET through the client: `{ data, error, response }` as openapi-fetch answers. */
export type PageFetcher = (query: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The items of a page and how to ask for the next one (undefined: this was the last). */
function readPage(body: unknown, query: Record<string, unknown>, origin: string): { items: unknown[]; next: Record<string, unknown> | undefined } {
  if (isRecord(body) && Array.isArray(body.value)) {
    const items = body.value as unknown[];
    const nextLink = body['@odata.nextLink'];
    if (typeof nextLink === 'string' && nextLink !== '') {
      const next: Record<string, unknown> = {};
      for (const [k, v] of new URL(nextLink, origin).searchParams) next[k] = v;
      return { items, next };
    }
    const top = Number(query.$top);
    if (Number.isInteger(top) && top > 0 && items.length === top) {
      return { items, next: { ...query, $skip: Number(query.$skip ?? 0) + items.length } };
    }
    return { items, next: undefined };
  }
  const list = isRecord(body) && isRecord(body.data) && Array.isArray(body.data.data) ? body.data : body;
  if (isRecord(list) && Array.isArray(list.data)) {
    const items = list.data as unknown[];
    const last = items[items.length - 1];
    const lastId = isRecord(last) ? last.id : undefined;
    if (list.hasMore === true && lastId !== undefined) return { items, next: { ...query, startingAfter: lastId } };
    return { items, next: undefined };
  }
  throw new TypeError('Till SDK: list() was given an operation whose answer is not a list (no `data`/`hasMore` and no OData `value`).');
}

/** Builds the iterator over one list: pages are fetched lazily, errors are thrown as `TillError`. */
export function paginate<T>(fetchPage: PageFetcher, query: Record<string, unknown>): TillList<T> {
  async function* pages(): AsyncGenerator<T[]> {
    let current: Record<string, unknown> | undefined = query;
    const seen = new Set<string>();
    while (current) {
      // A server that answers the same next page twice would loop forever: stop instead.
      const fingerprint = JSON.stringify(current);
      if (seen.has(fingerprint)) return;
      seen.add(fingerprint);
      const { data, error, response } = await fetchPage(current);
      if (!response.ok || error !== undefined) throw tillErrorFrom(response.status, error, response.headers.get('x-request-id'));
      const page = readPage(data, current, new URL(response.url || 'http://localhost/').origin);
      if (page.items.length === 0) return;
      yield page.items as T[];
      current = page.next;
    }
  }
  async function* items(): AsyncGenerator<T> {
    for await (const page of pages()) yield* page;
  }
  return {
    [Symbol.asyncIterator]: () => items(),
    pages,
    async toArray(options = {}) {
      const limit = options.limit ?? Infinity;
      const out: T[] = [];
      if (limit <= 0) return out;
      for await (const item of items()) {
        out.push(item);
        if (out.length >= limit) break;
      }
      return out;
    },
  };
}
