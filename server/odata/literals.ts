// A literal of the parsed $filter, checked against the field it is compared with, becomes a
// value to bind as a parameter. Nothing here reaches SQL as text.
import { type RawBuilder, sql } from 'kysely';
import { invalidOption } from './errors.js';
import type { Token } from './filter-parse.js';
import type { EnumType, Field } from './resource.js';

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,12})?)?(Z|[+-](\d{2}):(\d{2}))$/i;

/** The name of a field type, for messages. */
export function typeName(field: Field): string {
  return typeof field.type === 'string' ? field.type : `enum (${field.type.enum.join(', ')})`;
}

/** The string a quoted literal stands for: quotes removed, '' back to '. */
export function unquote(raw: string): string {
  return raw.slice(1, -1).replaceAll("''", "'");
}

/** A date-time whose parts are all in range (PostgreSQL would otherwise fail the statement). */
function validDateTime(raw: string): boolean {
  const m = DATE_TIME.exec(raw);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as number[];
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  const offsetOk = !m[9] || (Number(m[9]) < 24 && Number(m[10]) < 60);
  return y! >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === mo! - 1 && date.getUTCDate() === d && h! < 24 && mi! < 60 && s! < 60 && offsetOk;
}

function enumValue(type: EnumType, raw: string): string | number | undefined {
  if (!raw.startsWith("'")) return undefined;
  const wire = unquote(raw);
  if (!type.enum.includes(wire)) return undefined;
  return type.toDb ? type.toDb(wire) : wire;
}

/** The SQL value of a literal for a field, or undefined when it does not fit the field's type. */
function valueFor(field: Field, raw: string, kind: string): RawBuilder<unknown> | undefined {
  const type = field.type;
  if (typeof type === 'object') {
    const v = enumValue(type, raw);
    return v === undefined ? undefined : sql.val(v);
  }
  switch (type) {
    case 'string':
      return kind === 'Edm.String' ? sql.val(unquote(raw)) : undefined;
    case 'boolean':
      return kind === 'Edm.Boolean' ? sql.val(raw.toLowerCase() === 'true') : undefined;
    case 'int':
      return INTEGER.test(raw) && Number.isSafeInteger(Number(raw)) ? sql.val(Number(raw)) : undefined;
    case 'decimal':
      return DECIMAL.test(raw) && raw.length <= 60 ? sql`cast(${raw} as numeric)` : undefined;
    case 'datetime':
      return validDateTime(raw) ? sql`cast(${raw} as timestamptz)` : undefined;
    case 'guid': {
      const text = raw.startsWith("'") ? unquote(raw) : raw;
      return GUID.test(text) ? sql`cast(${text.toLowerCase()} as uuid)` : undefined;
    }
  }
}

/** The bound value of `literal` for `field`; a 400 naming both when they do not fit. */
export function literalFor(field: Field, name: string, literal: Token, at: number): RawBuilder<unknown> {
  const kind = String(literal.value);
  const raw = literal.raw;
  const value = kind === 'null' ? undefined : valueFor(field, raw, kind);
  if (value === undefined) {
    throw invalidOption('$filter', `the literal ${raw} at position ${at} does not fit the field ${name}, which is ${typeName(field)}.`);
  }
  return value;
}
