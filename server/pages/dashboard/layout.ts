// The dashboard's one layout: a top bar (merchant, mode and its toggle, sign-out), the sections'
// navigation, and the page. Its Content-Security-Policy is stricter than the hosted pages': no
// inline script or style at all (charts are SVG with presentation attributes), nothing from
// elsewhere, forms post only here, never framed.
import type { Response } from 'express';
import { html, type SafeHtml } from '../kit/html.js';
import { type DashboardContext, sectionHref } from './section.js';
import { csrfField } from './kit/form.js';

export interface DashboardPage {
  title: string;
  body: SafeHtml;
  status?: number;
  /** The path of the section the page belongs to (highlighted in the navigation): `'payments'`, `''` for home. */
  section?: string;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
}

/** Sends a page outside a session (sign-in, errors before sign-in). */
export function sendBarePage(res: Response, page: DashboardPage): void {
  send(res, page, html`<header class="topbar"><span class="brand">Till dashboard</span></header><main id="main" class="page">${page.body}</main>`);
}

/** Sends a page of a signed-in session, with its navigation (only the sections its key may see). */
export function sendDashboardPage(res: Response, ctx: DashboardContext, page: DashboardPage): void {
  const mode = ctx.tenant.livemode ? 'live' : 'test';
  const current = ctx.nav.find((s) => s.path === page.section)?.label ?? '';
  const nav = ctx.nav.map((s) => html`<li><a href="${sectionHref(s.path)}"${s.path === page.section ? html` aria-current="page"` : ''}>${s.label}</a></li>`);
  send(
    res,
    page,
    html`<header class="topbar">
<a class="brand" href="/dashboard">Till</a><span class="merchant" data-field="merchant">${ctx.merchantName}</span>
<span class="mode mode-${mode}" data-field="mode">${ctx.tenant.livemode ? 'Live mode' : 'Test mode'}</span>
${modeToggle(ctx)}
<form method="post" action="/dashboard/sign-out" class="inline">${csrfField(ctx)}<button type="submit" class="link-button">Sign out</button></form>
</header>
<nav class="sections" aria-label="Sections"><details class="menu"><summary>Menu<span class="menu-current">${current}</span></summary><ul>${nav}</ul></details></nav>
<main id="main" class="page">${page.body}</main>`,
  );
}

/** Switch to the other mode, or sign in to it when this session has no key of it. */
function modeToggle(ctx: DashboardContext): SafeHtml {
  const other = ctx.tenant.livemode ? 'test' : 'live';
  const label = `View ${other} data`;
  if (!ctx.modes[other]) return html`<a class="toggle" href="/dashboard/sign-in?mode=${other}">${label}</a>`;
  return html`<form method="post" action="/dashboard/mode" class="inline">${csrfField(ctx)}<input type="hidden" name="mode" value="${other}"><button type="submit" class="toggle">${label}</button></form>`;
}

/** The server's time on the request so far, from its arrival (the bench reads it: issue 33's ≤ 200 ms a page). */
function serverTiming(res: Response): void {
  const started = res.req.till?.started;
  if (started !== undefined) res.setHeader('Server-Timing', `app;dur=${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)}`);
}

function send(res: Response, page: DashboardPage, content: SafeHtml): void {
  securityHeaders(res);
  const doc = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${page.title} · Till dashboard</title>
<link rel="stylesheet" href="/assets/dashboard.css"></head>
<body><a class="skip" href="#main">Skip to content</a>${content}</body></html>`;
  serverTiming(res);
  res
    .status(page.status ?? 200)
    .type('html')
    .send(doc.value);
}
