// Charts as server-rendered SVG: no script, nothing inline the CSP would refuse (colours are
// presentation attributes and classes of dashboard.css). Each chart has a title and a text summary
// for screen readers; the SVG scales to its box (viewBox), so it never widens a narrow page.
import { html, type SafeHtml } from '../../kit/html.js';

export interface BarSeries {
  /** A legend label and the CSS class of its bars (`bar-volume`, `bar-ok`, `bar-failed`). */
  label: string;
  className: string;
  /** One value per category (e.g. per day), not negative. */
  values: readonly number[];
}

const W = 600;
const H = 180;
const PAD = { top: 10, right: 8, bottom: 22, left: 8 };

/**
 * Bars per category, the series side by side within a category. `labels` name the categories
 * (the first, the middle and the last are written under the axis); `summary` is the text
 * alternative.
 */
export function barChart(id: string, title: string, labels: readonly string[], series: readonly BarSeries[], summary: string): SafeHtml {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, labels.length);
  const barW = Math.max(1, (slot * 0.8) / series.length);
  const bars = series.flatMap((s, si) =>
    s.values.map((v, i) => {
      const h = (v / max) * plotH;
      if (h <= 0) return html``;
      const x = PAD.left + i * slot + slot * 0.1 + si * barW;
      return html`<rect class="${s.className}" x="${x.toFixed(1)}" y="${(PAD.top + plotH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"></rect>`;
    }),
  );
  const ticks = [0, Math.floor((labels.length - 1) / 2), labels.length - 1]
    .filter((i, n, all) => i >= 0 && all.indexOf(i) === n)
    .map((i) => {
      const anchor = i === 0 ? 'start' : i === labels.length - 1 ? 'end' : 'middle';
      const x = i === 0 ? PAD.left : i === labels.length - 1 ? W - PAD.right : PAD.left + i * slot + slot / 2;
      return html`<text x="${x.toFixed(1)}" y="${H - 6}" text-anchor="${anchor}" class="axis">${labels[i]!}</text>`;
    });
  const legend = series.map((s) => html`<li><span class="swatch ${s.className}" aria-hidden="true"></span>${s.label}</li>`);
  return html`<figure class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-t ${id}-d"><title id="${id}-t">${title}</title><desc id="${id}-d">${summary}</desc><line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${W - PAD.right}" y2="${PAD.top + plotH}" class="baseline"></line>${bars}${ticks}</svg><figcaption><ul class="legend">${legend}</ul></figcaption></figure>`;
}
