// Forward keyset pages for the lists whose owning module pages newest first `after` an id (the
// API's `startingAfter`): the first page, then "Older" after the last id shown. Going back is the
// browser's Back or "Newest" (the first page), so each page stays one indexed range read.
import type { Request } from 'express';
import { html, type SafeHtml } from '../../kit/html.js';
import { queryText } from './list.js';

/** Rows per page. */
export const PAGE_SIZE = 25;

/** `?after=` as a positive integer id (undefined when absent or not one). */
export function afterNumber(req: Request): number | undefined {
  const text = queryText(req, 'after') ?? '';
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 2147483647 ? n : undefined;
}

/** `?after=` as an object id of the given shape (`dp_…`, `po_…`), or undefined. */
export function afterToken(req: Request, shape: RegExp): string | undefined {
  const text = queryText(req, 'after');
  return text !== undefined && shape.test(text) ? text : undefined;
}

/** "Newest" (when past the first page) and "Older →" (when more follow) links, keeping the filters of `req`. */
export function olderPager(req: Request, base: string, hasMore: boolean, lastId: string | number | undefined): SafeHtml {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) {
    if (name !== 'after' && name !== 'done' && typeof value === 'string') params.set(name, value);
  }
  const first = params.size ? `${base}?${params.toString()}` : base;
  const newest = req.query.after !== undefined ? html`<a href="${first}">← Newest</a>` : html`<span></span>`;
  if (hasMore && lastId !== undefined) params.set('after', String(lastId));
  const older = hasMore && lastId !== undefined ? html`<a rel="next" href="${`${base}?${params.toString()}`}">Older →</a>` : html`<span></span>`;
  return html`<nav class="pager" aria-label="Pages">${newest}${older}</nav>`;
}

/** A `YYYY-MM-DD` day's start (UTC), `plusDays` later; undefined when it is not one. */
export function dayStart(text: string | undefined, plusDays = 0): Date | undefined {
  if (!text || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return undefined;
  const at = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? undefined : new Date(at.getTime() + plusDays * 86_400_000);
}

/** A path's `:id` as a positive integer, or undefined. */
export function numericId(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 2147483647 ? n : undefined;
}

/** The choice of `name` when it is one of `choices`, else undefined. */
export function choiceOf<T extends string>(req: Request, name: string, choices: readonly T[]): T | undefined {
  const value = queryText(req, name);
  return choices.find((c) => c === value);
}
