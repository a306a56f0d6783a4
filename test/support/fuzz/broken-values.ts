// Arbitraries of values that break a schema in each way the schema allows: the wrong type, text
// that is empty, huge or holds control characters or lone surrogates, numbers out of range or with
// too many decimals, values outside an enum, and deep nesting.
import fc from 'fast-check';
import { type Json, resolveSchema, typesOf } from './contract.js';

/** A value nested `depth` levels deep, as objects or arrays. */
export function nested(depth: number, array: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = array ? [value] : { a: value };
  return value;
}

const CONTROL_TEXT = [
  'bad\u0000nul',
  '\u0000',
  'a\u0001b\u001fc',
  'tab\tnew\nline\rcr',
  '\u007f\u0080\u009f',
  '\ud800',
  'lone \udfff low',
  '\ufeffbom',
  '\uffff\ufffe',
];

const WRONG_TYPES: Record<string, unknown[]> = {
  string: [123, -1, true, null, {}, [], ['x'], 1e308],
  integer: ['12', '', 1.5, true, null, {}, [1], 'NaN', 'Infinity'],
  number: ['12.5', '', true, null, {}, [1], 'NaN', '1e400'],
  boolean: ['true', 1, 0, null, 'yes', {}, []],
  array: [{}, 'x', 1, null, true, { 0: 'x' }],
  object: [[], 'x', 1, null, true, [{}]],
};

function numberBreakers(schema: Json, integer: boolean): unknown[] {
  const out: unknown[] = [1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 9.999999999999999e22, 1e21, 0.1 + 0.2, 1.234567891, 0.001, -0, 4242424242424242];
  if (typeof schema.minimum === 'number') out.push(schema.minimum - 1, schema.minimum - 0.001);
  if (typeof schema.maximum === 'number') out.push(schema.maximum + 1, schema.maximum + 0.001);
  if (typeof schema.exclusiveMinimum === 'number') out.push(schema.exclusiveMinimum);
  if (typeof schema.exclusiveMaximum === 'number') out.push(schema.exclusiveMaximum);
  if (integer) out.push(1.5, 2147483648, -2147483649, 9223372036854775808);
  return out;
}

function stringBreakers(schema: Json): unknown[] {
  const out: unknown[] = ['', ' ', ...CONTROL_TEXT, 'x'.repeat(5000)];
  if (typeof schema.maxLength === 'number') out.push('y'.repeat(schema.maxLength + 1));
  if (typeof schema.minLength === 'number' && schema.minLength > 0) out.push('z'.repeat(schema.minLength - 1));
  if (schema.format) out.push('not-a-' + schema.format, '2026-13-45T25:61:61Z', '9999999-01-01', 'http://', 'javascript:alert(1)');
  if (schema.pattern) out.push('!!!', '%%%', '___');
  if (Array.isArray(schema.enum)) out.push(...schema.enum.map((v: unknown) => (typeof v === 'string' ? v.toUpperCase() + '_' : v)), 'unknown_value');
  return out;
}

/**
 * Values that break `rawSchema`. Huge (1 MB) strings are left to the body-level cases, where the
 * body limit is the point.
 */
export function brokenValue(doc: Json, rawSchema: unknown): fc.Arbitrary<unknown> {
  const schema = resolveSchema(doc, rawSchema);
  const types = typesOf(schema);
  const candidates: unknown[] = [];
  for (const type of types.length > 0 ? types : ['string']) {
    candidates.push(...(WRONG_TYPES[type] ?? []).filter((v) => !types.includes(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)));
    if (type === 'string') candidates.push(...stringBreakers(schema));
    if (type === 'integer' || type === 'number') candidates.push(...numberBreakers(schema, type === 'integer'));
    if (type === 'array')
      candidates.push(
        Array.from({ length: (schema.maxItems ?? 100) + 1 }, () => 'x'),
        [null],
        [[[[]]]],
      );
    if (type === 'object') candidates.push({ unexpected: 1 }, { ['__proto__']: { polluted: true } }, { constructor: { prototype: 1 } });
  }
  return fc.oneof({ arbitrary: fc.constantFrom(...candidates), weight: 6 }, { arbitrary: fc.constantFrom(nested(50, false), nested(50, true)), weight: 1 });
}

/** A raw query or path value that breaks the parameter: bad percent-encoding, NUL, wrong type, out of range. */
export function brokenRawParam(doc: Json, rawSchema: unknown): fc.Arbitrary<string> {
  const raw = fc.constantFrom('%E0%A4%A', '%', '%zz', '%C0%AF', '%ED%A0%80', '%FF%FE', '%00', 'a%00b', '%0D%0Aset-cookie:x', '%25', '%u0041', '%2F..%2F', '');
  const encoded = brokenValue(doc, rawSchema).map((v) => encodeText(typeof v === 'string' ? v : (JSON.stringify(v) ?? '')));
  return fc.oneof(raw, encoded, fc.constantFrom('-1', '0', '1e999', '99999999999999999999999', '1.0000001', 'true', '[]', "'", 'x'.repeat(5000)));
}

/** Percent-encodes text; a lone surrogate (which `encodeURIComponent` refuses) becomes the bytes of its invalid UTF-8 form. */
export function encodeText(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff)
      out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    else out += encodeURIComponent(ch);
  }
  return out;
}
