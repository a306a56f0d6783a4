// Pages of a list whose service pages forward only (`startingAfter`, as the API's lists): an
// "Older" link after the last row shown and a link back to the newest page, keeping the filters.
import type { Request } from 'express';
import { html, type SafeHtml } from '../../kit/html.js';

/** A "next page" link keeping the query's filters: the services page forward from the last row shown. */
export function nextLink(req: Request, base: string, hasMore: boolean, lastId: string | number | undefined): SafeHtml {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) if (name !== 'after' && name !== 'done' && typeof value === 'string') params.set(name, value);
  const first = req.query.after !== undefined ? html`<a href="${base}${params.size ? `?${params.toString()}` : ''}">← Newest</a>` : html`<span></span>`;
  if (hasMore && lastId !== undefined) params.set('after', String(lastId));
  const next = hasMore && lastId !== undefined ? html`<a rel="next" href="${base}?${params.toString()}">Older →</a>` : html`<span></span>`;
  return html`<nav class="pager" aria-label="Pages">${first}${next}</nav>`;
}
