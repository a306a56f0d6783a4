// An object's page: its fields as a description list, and its timeline (what happened to it, in order).
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';

/** Label and value pairs; a null or empty value shows as a dash. */
export function fieldList(fields: readonly (readonly [string, SafeHtml | string | null | undefined])[]): SafeHtml {
  const rows = fields.map(
    ([label, value]) => html`<div class="kv"><dt>${label}</dt><dd>${value === null || value === undefined || value === '' ? '—' : value}</dd></div>`,
  );
  return html`<dl class="fields">${rows}</dl>`;
}

export interface TimelineItem {
  at: Date;
  title: string;
  detail?: SafeHtml | string | undefined;
}

/** Items in time order (oldest first). */
export function timeline(items: readonly TimelineItem[], empty = 'Nothing has happened yet.'): SafeHtml {
  if (items.length === 0) return html`<p class="empty">${empty}</p>`;
  const sorted = [...items].sort((a, b) => a.at.getTime() - b.at.getTime());
  return html`<ol class="timeline">${sorted.map(
    (item) =>
      html`<li><time datetime="${item.at.toISOString()}">${formatDate(item.at)}</time><span class="tl-title">${item.title}</span>${item.detail ? html`<span class="tl-detail">${item.detail}</span>` : ''}</li>`,
  )}</ol>`;
}

/** A status as a small badge. */
export const badge = (status: string): SafeHtml => html`<span class="badge badge-${status.replace(/[^a-z_]/g, '')}">${status.replace(/_/g, ' ')}</span>`;

/** A titled part of a page. */
export const section = (title: string, body: SafeHtml, id?: string): SafeHtml =>
  html`<section class="card"${id ? html` id="${id}"` : ''} aria-labelledby="${`h-${id ?? title.toLowerCase().replace(/[^a-z]+/g, '-')}`}"><h2 id="${`h-${id ?? title.toLowerCase().replace(/[^a-z]+/g, '-')}`}">${title}</h2>${body}</section>`;
