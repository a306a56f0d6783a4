// Lists of the dashboard: filters are a GET form (so a filtered page has an address), pages are
// keyset cursors (`after` the last id shown, `before` the first), and the table scrolls inside its
// own box on a narrow screen, never the page.
import type { Request } from 'express';
import { html, type SafeHtml } from '../../kit/html.js';

/** A column: its heading and how a row shows in it. */
export interface Column<T> {
  heading: string;
  cell: (row: T) => SafeHtml | string;
  /** Numbers align right. */
  numeric?: boolean;
}

/** A table of rows, or `empty` when there is none. `caption` names it for screen readers. */
export function table<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[], empty = 'Nothing here yet.'): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  const head = columns.map((c) => html`<th scope="col"${c.numeric ? html` class="num"` : ''}>${c.heading}</th>`);
  const body = rows.map((row) => html`<tr>${columns.map((c) => html`<td${c.numeric ? html` class="num"` : ''}>${c.cell(row)}</td>`)}</tr>`);
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table><caption class="visually-hidden">${caption}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** A keyset cursor from the query: `after` or `before` an id (a positive integer), and the page size. */
export interface Cursor {
  limit: number;
  after?: number | undefined;
  before?: number | undefined;
}

const positiveId = (value: unknown): number | undefined => {
  const text = typeof value === 'string' ? value : '';
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 2147483647 ? n : undefined;
};

/** A keyset cursor whose ids are text (`cs_test_…`), each matching `pattern`. */
export interface TextCursor {
  limit: number;
  after?: string | undefined;
  before?: string | undefined;
}

/** The page asked for when the ids are text: `?after=<id>` or `?before=<id>` matching `pattern`, 25 rows. */
export function textCursorOf(req: Request, pattern: RegExp, defaultLimit = 25): TextCursor {
  const limit = Math.min(100, positiveId(req.query.limit) ?? defaultLimit);
  const id = (value: unknown) => (typeof value === 'string' && pattern.test(value) ? value : undefined);
  const before = id(req.query.before);
  return before !== undefined ? { limit, before } : { limit, after: id(req.query.after) };
}

/** The page asked for: `?after=<id>` or `?before=<id>`, 25 rows (or `?limit=` up to 100). */
export function cursorOf(req: Request, defaultLimit = 25): Cursor {
  const limit = Math.min(100, positiveId(req.query.limit) ?? defaultLimit);
  const before = positiveId(req.query.before);
  return before !== undefined ? { limit, before } : { limit, after: positiveId(req.query.after) };
}

/** One query value as text (the first, trimmed, at most 200 characters), or undefined when absent or empty. */
export function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string') return undefined;
  const text = first.trim().slice(0, 200);
  return text === '' ? undefined : text;
}

/**
 * The rows of a page from the `limit + 1` a repository fetched in the cursor's direction, and
 * whether there are older (`next`) and newer (`previous`) rows.
 */
export function pageOf<T>(rows: T[], cursor: Cursor | TextCursor): { rows: T[]; hasNext: boolean; hasPrevious: boolean } {
  const more = rows.length > cursor.limit;
  if (cursor.before !== undefined) return { rows: more ? rows.slice(1) : rows, hasNext: true, hasPrevious: more };
  return { rows: rows.slice(0, cursor.limit), hasNext: more, hasPrevious: cursor.after !== undefined };
}

/** Previous / next links that keep the filters of `req` and move the cursor to the page's first or last id. */
export function pager<T>(req: Request, base: string, page: { rows: T[]; hasNext: boolean; hasPrevious: boolean }, idOf: (row: T) => number | string): SafeHtml {
  if (page.rows.length === 0) return html``;
  const link = (key: 'after' | 'before', id: number | string) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(req.query)) {
      if (name !== 'after' && name !== 'before' && name !== 'done' && typeof value === 'string') params.set(name, value);
    }
    params.set(key, String(id));
    return `${base}?${params.toString()}`;
  };
  const previous = page.hasPrevious ? html`<a rel="prev" href="${link('before', idOf(page.rows[0]!))}">← Newer</a>` : html`<span></span>`;
  const next = page.hasNext ? html`<a rel="next" href="${link('after', idOf(page.rows[page.rows.length - 1]!))}">Older →</a>` : html`<span></span>`;
  return html`<nav class="pager" aria-label="Pages">${previous}${next}</nav>`;
}

/** A filter bar: a GET form to `base` with the given fields and a Filter button (and a reset link). */
export function filterForm(base: string, fields: SafeHtml[]): SafeHtml {
  return html`<form method="get" action="${base}" class="filters" role="search">${fields}<div class="filter-actions"><button type="submit" class="button primary">Filter</button><a href="${base}">Reset</a></div></form>`;
}
