// The one layout of every hosted page: the merchant's name, logo and button colour, one
// stylesheet, one script (or none), and the security headers. The Content-Security-Policy allows
// nothing inline but the page's own colour rule (by its hash): scripts and styles come from this
// server, calls go only to this server, images only from here and the merchant's logo.
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { type SafeHtml, html } from './html.js';

export interface Brand {
  name: string;
  logoUrl: string | null;
  /** `#rrggbb`, or null for Till's own. */
  color: string | null;
}

export interface PageOptions {
  title: string;
  brand: Brand | null;
  body: SafeHtml;
  /** Path of the page's script, e.g. `/assets/checkout.js`. */
  script?: string;
  /** Attributes for the `<main>` element's data (the script reads them). */
  data?: Record<string, string>;
  status?: number;
  /** Who may frame the page: nobody (default), or any origin (the embedded form). */
  framing?: 'none' | 'any';
  /** Origins a form on the page may post to, besides this server. */
  formTargets?: string[];
}

const DEFAULT_COLOR = '#1f5eff';

/** White or near-black text, whichever reads better on the colour (WCAG relative luminance). */
export function textOn(color: string): string {
  const channel = (i: number) => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.4 ? '#111827' : '#ffffff';
}

const originOf = (url: string | null | undefined): string | undefined => {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
};

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

function securityHeaders(res: Response, options: PageOptions, brandCss: string): void {
  const logo = originOf(options.brand?.logoUrl);
  const formAction = ["'self'", ...(options.formTargets ?? []).map(originOf).filter(Boolean)].join(' ');
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      `style-src 'self' ${sha256(brandCss)}`,
      `img-src 'self' data:${logo ? ` ${logo}` : ''}`,
      "connect-src 'self'",
      `form-action ${formAction}`,
      `frame-ancestors ${options.framing === 'any' ? '*' : "'none'"}`,
      "base-uri 'none'",
    ].join('; '),
  );
  if (options.framing !== 'any') res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
}

/** Renders a full page and sends it. */
export function sendPage(res: Response, options: PageOptions): void {
  const color = options.brand?.color ?? DEFAULT_COLOR;
  const brandCss = `:root{--brand:${color};--on-brand:${textOn(color)}}`;
  securityHeaders(res, options, brandCss);
  const data = Object.entries(options.data ?? {}).map(([k, v]) => html` data-${k}="${v}"`);
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${options.title}</title>
<link rel="stylesheet" href="/assets/page.css"><style>${brandCss}</style>
${options.script ? html`<script type="module" src="${options.script}"></script>` : ''}</head>
<body><div class="shell">${options.brand ? header(options.brand) : ''}
<main id="main"${data}>${options.body}</main>
<footer class="footer">Payments by Till</footer></div></body></html>`;
  res
    .status(options.status ?? 200)
    .type('html')
    .send(page.value);
}

function header(brand: Brand): SafeHtml {
  return html`<header class="merchant">${brand.logoUrl && originOf(brand.logoUrl) ? html`<img class="logo" src="${brand.logoUrl}" alt="">` : ''}<span class="merchant-name" data-field="merchant">${brand.name}</span></header>`;
}
