// HTML by tagged template with automatic escaping: every interpolated value is escaped unless it
// is already `SafeHtml` (another template's output, or `raw` of a constant). Arrays are joined.
// There is no other way to put text into a page, so nothing a payer or merchant typed can become
// markup.

/** Markup that is already safe to insert. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

/** Escapes text for HTML content and quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: the strings are the template's own markup; each value is escaped. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Trusted markup written in the code (never data). */
export const raw = (markup: string): SafeHtml => new SafeHtml(markup);
