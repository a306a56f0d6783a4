// Forms of the dashboard: every form carries the session's form token (`csrfField`), and every POST
// is refused without it (routes.ts checks it before any section runs). An action is POST, then a
// redirect (303) to a page: a reload repeats nothing.
import type { Response } from 'express';
import { html, type SafeHtml } from '../../kit/html.js';
import type { DashboardContext } from '../section.js';

/** The hidden field with the session's form token: put it in every `<form method="post">`. */
export const csrfField = (ctx: Pick<DashboardContext, 'csrf'>): SafeHtml => html`<input type="hidden" name="csrf" value="${ctx.csrf}">`;

/** A form of one button that posts to `action` (with the form token and any hidden `fields`). */
export function postButton(
  ctx: DashboardContext,
  action: string,
  label: string,
  fields: Record<string, string> = {},
  kind: 'primary' | 'secondary' | 'danger' = 'secondary',
): SafeHtml {
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${action}" class="inline">${csrfField(ctx)}${hidden}<button type="submit" class="button ${kind}">${label}</button></form>`;
}

/** A message above a page's content: what an action did (`notice`) or why it was refused (`alert`). */
export interface Flash {
  notice?: string | undefined;
  alert?: string | undefined;
}

export function flashBox(flash: Flash): SafeHtml {
  return html`${flash.notice ? html`<p class="notice" id="notice" role="status">${flash.notice}</p>` : ''}${flash.alert ? html`<p class="alert" id="alert" role="alert">${flash.alert}</p>` : ''}`;
}

/** After an action, back to a page with a `done` code the page turns into constant text (nothing from the address is shown). */
export function redirectDone(res: Response, to: string, done: string): void {
  res.redirect(303, `${to}${to.includes('?') ? '&' : '?'}done=${encodeURIComponent(done)}`);
}

/** A labelled input. */
export function field(
  label: string,
  name: string,
  options: { type?: string; value?: string; inputmode?: string; placeholder?: string; required?: boolean } = {},
): SafeHtml {
  const id = `f-${name}`;
  return html`<div class="field"><label for="${id}">${label}</label><input id="${id}" name="${name}" type="${options.type ?? 'text'}" value="${options.value ?? ''}"${options.inputmode ? html` inputmode="${options.inputmode}"` : ''}${options.placeholder ? html` placeholder="${options.placeholder}"` : ''}${options.required ? html` required` : ''}></div>`;
}

/** A labelled select; `value` is the chosen option's. */
export function selectField(label: string, name: string, choices: readonly (readonly [string, string])[], value: string | undefined): SafeHtml {
  const id = `f-${name}`;
  const options = choices.map(([v, text]) => html`<option value="${v}"${v === (value ?? '') ? html` selected` : ''}>${text}</option>`);
  return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}">${options}</select></div>`;
}
