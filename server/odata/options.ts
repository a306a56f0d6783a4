// The query options other than $filter: $orderby, $top, $skip, $count, $select, $expand.
// Each is checked against the resource; anything else is a 400 naming the option and token.
import { AppError } from '../shared/errors.js';
import { invalidOption } from './errors.js';
import { fieldOf, type Resource } from './resource.js';

export interface SortKey {
  field: string;
  direction: 'asc' | 'desc';
}

/** The OData options this engine reads. */
export const OPTIONS = ['$filter', '$orderby', '$top', '$skip', '$count', '$select', '$expand'] as const;
const MAX_SKIP = 2_147_483_647;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The comma-separated items of an option, each with its position. */
function items(option: string, text: string): Array<{ item: string; at: number }> {
  const out: Array<{ item: string; at: number }> = [];
  let at = 0;
  for (const part of text.split(',')) {
    const lead = part.length - part.trimStart().length;
    const item = part.trim();
    if (item === '') throw invalidOption(option, `empty item at position ${at + lead}.`);
    out.push({ item, at: at + lead });
    at += part.length + 1;
  }
  return out;
}

/** `$orderby`, always ending with the key so pages are stable. */
export function parseOrderBy(resource: Resource, text: string | undefined): SortKey[] {
  const keys: SortKey[] = [];
  for (const { item, at } of text === undefined ? [] : items('$orderby', text)) {
    const m = /^(\S+)(?:\s+(\S+))?$/.exec(item);
    const [name, dir] = [m?.[1] ?? item, m?.[2]?.toLowerCase()];
    if (!m || !NAME.test(name)) throw invalidOption('$orderby', `syntax error at position ${at}.`);
    const field = fieldOf(resource, name);
    if (!field) throw invalidOption('$orderby', `unknown field ${name} at position ${at}.`);
    if (!field.sort) throw invalidOption('$orderby', `the field ${name} cannot be sorted (position ${at}).`);
    if (dir !== undefined && dir !== 'asc' && dir !== 'desc') {
      throw invalidOption('$orderby', `expected asc or desc after ${name}, not ${m[2]} (position ${at + item.indexOf(m[2]!)}).`);
    }
    if (keys.some((k) => k.field === name)) throw invalidOption('$orderby', `the field ${name} is named twice (position ${at}).`);
    keys.push({ field: name, direction: dir ?? 'asc' });
  }
  if (!keys.some((k) => k.field === resource.key)) keys.push({ field: resource.key, direction: resource.keyDirection });
  return keys;
}

function nonNegativeInteger(option: string, text: string, max: number): number {
  if (!/^\d{1,16}$/.test(text)) throw invalidOption(option, `expected a non-negative integer, not ${JSON.stringify(text.slice(0, 40))}.`);
  const n = Number(text);
  if (n > max) throw invalidOption(option, `${n} is over the maximum of ${max}.`);
  return n;
}

export function parseTop(resource: Resource, text: string | undefined): number {
  return text === undefined ? resource.defaultTop : nonNegativeInteger('$top', text, resource.maxTop);
}

export function parseSkip(text: string | undefined): number {
  return text === undefined ? 0 : nonNegativeInteger('$skip', text, MAX_SKIP);
}

export function parseCount(text: string | undefined): boolean {
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  throw invalidOption('$count', `expected true or false, not ${JSON.stringify(text.slice(0, 40))}.`);
}

/** `$select`: selectable fields, or undefined for all. */
export function parseSelect(resource: Resource, text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return [
    ...new Set(
      items('$select', text).map(({ item, at }) => {
        const field = fieldOf(resource, item);
        if (!field) throw invalidOption('$select', `unknown field ${item.slice(0, 60)} at position ${at}.`);
        if (!field.select) throw invalidOption('$select', `the field ${item} cannot be selected (position ${at}).`);
        return item;
      }),
    ),
  ];
}

/** `$expand`: declared navigations only, without nested options. */
export function parseExpand(resource: Resource, text: string | undefined): string[] {
  if (text === undefined) return [];
  return [
    ...new Set(
      items('$expand', text).map(({ item, at }) => {
        if (!resource.expand.includes(item)) throw invalidOption('$expand', `unknown navigation ${item.slice(0, 60)} at position ${at}.`);
        return item;
      }),
    ),
  ];
}

/** The one value of an option: a repeated option (an array) or an unknown `$` option is a 400. */
export function optionValues(raw: Record<string, unknown>): Partial<Record<(typeof OPTIONS)[number], string>> {
  const out: Partial<Record<(typeof OPTIONS)[number], string>> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!name.startsWith('$')) continue;
    if (!(OPTIONS as readonly string[]).includes(name)) {
      throw new AppError('parameter_unknown', { param: name, message: `${name.slice(0, 40)}: this list does not accept this option.` });
    }
    if (value === undefined) continue;
    // The request validator may already have coerced $top, $skip and $count.
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw invalidOption(name, 'must be given once.');
    out[name as (typeof OPTIONS)[number]] = String(value);
  }
  return out;
}
