// Arbitraries of values that keep a JSON schema of the contract (enum, const, type, format,
// pattern, length and range, required and optional properties), with hostile but valid text in
// free-text fields, and real ids (from the fixtures) in fields whose name says they hold one.
import fc from 'fast-check';
import { type Json, resolveSchema, typesOf } from './contract.js';

/** Text a real caller might send that often breaks naive code: SQL, markup, long, unusual Unicode. */
export const HOSTILE_TEXT = [
  "'; DROP TABLE customers; --",
  "' OR '1'='1",
  'SELECT * FROM merchants WHERE 1=1',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'x'.repeat(5000),
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀👍🏽 ﷺ',
  '\u202eevil\u202c',
  'e\u0301\u0301\u0301 zero\u200bwidth',
  '../../../../etc/passwd',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '%00%27%22',
  '\\',
  '  ',
  'null',
  '-1',
  '1e309',
  '名前 имя اسم',
];

/** Real ids by the property or parameter names that carry them; filled by the fixtures. */
export type KnownIds = Record<string, unknown[]>;

const FORMAT: Record<string, () => fc.Arbitrary<string>> = {
  email: () => fc.constantFrom('fuzz@example.com', "o'brien+tag@example.co.uk", 'a@b.co', `${'x'.repeat(64)}@example.com`),
  uri: () => fc.constantFrom('https://example.com/ok', 'https://example.com/p?q=<script>', 'https://xn--bcher-kva.example/ü'),
  url: () => fc.constantFrom('https://example.com/ok'),
  'date-time': () => fc.constantFrom('2026-01-31T12:00:00Z', '2030-12-31T23:59:59.999Z', '1970-01-01T00:00:00Z', '2026-02-29T00:00:00Z'),
  date: () => fc.constantFrom('2026-01-31', '2030-12-31', '1970-01-01', '9999-12-31'),
  uuid: () => fc.uuid(),
};

function fitLength(s: string, schema: Json): string {
  let out = s;
  if (typeof schema.maxLength === 'number' && out.length > schema.maxLength) out = out.slice(0, schema.maxLength);
  if (typeof schema.minLength === 'number' && out.length < schema.minLength) out = out.padEnd(schema.minLength, 'x');
  return out;
}

function stringArbitrary(schema: Json): fc.Arbitrary<string> {
  if (schema.format && FORMAT[schema.format]) return FORMAT[schema.format]!();
  if (typeof schema.pattern === 'string') {
    try {
      // Out of the length bounds, a documented example stands in (a filter could spin for long).
      const fallback = Array.isArray(schema.examples) && typeof schema.examples[0] === 'string' ? schema.examples[0] : undefined;
      const fits = (s: string) => s.length <= (schema.maxLength ?? 200) && s.length >= (schema.minLength ?? 0);
      return fc.stringMatching(new RegExp(schema.pattern)).map((s) => (fits(s) || fallback === undefined ? s : fallback));
    } catch {
      /* a pattern JavaScript cannot read: fall through to plain text */
    }
  }
  const plain = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40), unit: 'grapheme' });
  return fc.oneof({ arbitrary: plain, weight: 2 }, { arbitrary: fc.constantFrom(...HOSTILE_TEXT).map((s) => fitLength(s, schema)), weight: 3 });
}

function numberArbitrary(schema: Json, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 0.01) : integer ? -1000 : -1000);
  const max = schema.maximum ?? (typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : 0.01) : 1_000_000);
  const edges = [min, max].filter((n) => Number.isFinite(n));
  if (integer) return fc.oneof(fc.integer({ min: Math.ceil(Math.max(min, -1e9)), max: Math.floor(Math.min(max, 1e9)) }), fc.constantFrom(...edges));
  const cents = fc.integer({ min: Math.ceil(Math.max(min, -1e7) * 100), max: Math.floor(Math.min(max, 1e7) * 100) }).map((c) => c / 100);
  return fc.oneof(cents, fc.constantFrom(...edges));
}

/** A value that keeps `schema`, as far as a generator can tell (server-side rules may still refuse it). */
export function validValue(doc: Json, rawSchema: unknown, known: KnownIds = {}, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveSchema(doc, rawSchema);
  const generated = byType(doc, schema, known, depth);
  const ids = known[name];
  return ids && ids.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 3 }, { arbitrary: generated, weight: 1 }) : generated;
}

function byType(doc: Json, schema: Json, known: KnownIds, depth: number): fc.Arbitrary<unknown> {
  const generated = generatedByType(doc, schema, known, depth);
  // The contract's own examples of a field are valid in the ways a generator cannot know (a real currency).
  const examples =
    Array.isArray(schema.examples) && schema.enum === undefined ? schema.examples.filter((e: unknown) => e === null || typeof e !== 'object') : [];
  return examples.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...examples), weight: 2 }, { arbitrary: generated, weight: 1 }) : generated;
}

function generatedByType(doc: Json, schema: Json, known: KnownIds, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const branches = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(branches) && branches.length > 0) return fc.oneof(...branches.map((b: unknown) => validValue(doc, b, known, '', depth + 1)));
  const types = typesOf(schema).filter((t) => t !== 'null');
  const type = types[0] ?? 'string';
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const maxLength = Math.min(schema.maxItems ?? 3, 3);
      return fc.array(validValue(doc, schema.items ?? {}, known, '', depth + 1), { minLength: Math.min(schema.minItems ?? 0, maxLength), maxLength });
    }
    case 'object':
      return objectArbitrary(doc, schema, known, depth);
    default:
      return fc.string({ maxLength: 10 });
  }
}

function objectArbitrary(doc: Json, schema: Json, known: KnownIds, depth: number): fc.Arbitrary<unknown> {
  const properties = Object.entries<Json>(schema.properties ?? {});
  if (properties.length === 0) {
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      return fc.dictionary(fc.constantFrom('orderId', 'note', '<b>k</b>', "k'ey", 'ключ'), validValue(doc, schema.additionalProperties, known, '', depth + 1), {
        maxKeys: 3,
      });
    }
    return fc.constant({});
  }
  if (depth > 6) return fc.constant({});
  const required = new Set<string>(schema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, prop] of properties) model[key] = validValue(doc, prop, known, key, depth + 1);
  // A few optional fields at a time: many bodies have fields that exclude each other.
  const optional = properties.map(([k]) => k).filter((k) => !required.has(k));
  return fc.subarray(optional, { maxLength: Math.min(3, optional.length) }).chain((chosen) => {
    const keys = [...required].filter((k) => model[k]).concat(chosen);
    return fc.record(Object.fromEntries(keys.map((k) => [k, model[k]!])));
  });
}
