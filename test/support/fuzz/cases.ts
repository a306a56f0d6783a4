// One fuzz case per draw: a request for one operation that is either valid (from the schema or
// the contract's examples, carrying hostile text) or broken in one way the contract allows: a
// body field of the wrong type or out of range, a required field missing, an unknown field,
// bytes that are not UTF-8 or not JSON, deep nesting, a body over the limit, the wrong content
// type, broken path and query values, duplicate or nested query keys, unknown OData options.
import fc from 'fast-check';
import { brokenRawParam, brokenValue } from './broken-values.js';
import { type FuzzOperation, type Json, resolveSchema } from './contract.js';
import { type Credentials, type FuzzContext, credentials, encodePathValue, fillPath, pathValue, queryPairs, queryString } from './request-parts.js';
import { validValue } from './valid-values.js';

export interface FuzzCase {
  /** What the case breaks (or `valid`), for the report. */
  kind: string;
  method: string;
  /** The raw request target: path and query, exactly as sent. */
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  auth: string;
}

interface Parts {
  path: Record<string, string>;
  query: [string, string][];
  body: unknown;
  creds: Credentials;
  idempotencyKey: string | undefined;
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'null', 'utf8');
const ODATA_GARBAGE: Record<string, string[]> = {
  $filter: [
    "nosuchfield eq 'x'",
    "status eq 'Paid' and",
    'status eq',
    "status xx 'Paid'",
    '((((((((((',
    "status eq 'it''s'",
    'id eq 1; DROP TABLE invoices',
    'substringof(1,2)',
    "contains(status,'P')",
    'status eq null',
    'amount gt 1e999',
    "status in ('a','b')",
    '1 eq 1',
    "$it eq 'x'",
    'x'.repeat(3000),
  ],
  $orderby: ['nosuchfield desc', 'id sideways', 'id desc,', ',', 'id desc desc', "id'; --", '1'],
  $top: ['-1', '101', 'abc', '1e3', '99999999999999999999', '1.5', ''],
  $skip: ['-1', 'abc', '1e3', '99999999999999999999', '9223372036854775808'],
  $select: ['nosuchfield', 'id,,id', '*', 'id;drop', '@odata.count'],
  $expand: ['nosuch', 'merchant($expand=x)', '*', 'items/nosuch'],
  $count: ['maybe', '1', 'TRUE', ''],
  $search: ['anything'],
  $apply: ['groupby((status))'],
  $format: ['xml'],
};

/** A contract example with the fixtures' real ids in the fields that name one (`productId: 12` is nobody's product here). */
function withKnownIds(value: unknown, known: FuzzContext['known']): unknown {
  if (Array.isArray(value)) return value.map((v) => withKnownIds(v, known));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, known[k]?.length && (typeof v === 'number' || typeof v === 'string') ? known[k]![0] : withKnownIds(v, known)]),
  );
}

/** The parts of a valid request: real ids in the path, schema-valid query and body, the right key. */
function validParts(op: FuzzOperation, ctx: FuzzContext): fc.Arbitrary<Parts> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const path = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathValue(op, ctx, p)])) as Record<string, fc.Arbitrary<string>>);
  const body = op.body
    ? op.body.examples.length > 0
      ? fc.oneof(
          { arbitrary: validValue(op.doc, op.body.schema, ctx.known), weight: 3 },
          { arbitrary: fc.constantFrom(...op.body.examples).map((e) => withKnownIds(e, ctx.known)), weight: 2 },
        )
      : validValue(op.doc, op.body.schema, ctx.known)
    : fc.constant(undefined);
  const idempotencyKey =
    op.method === 'POST'
      ? fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.uuid(), weight: 1 }, { arbitrary: fc.constant('fuzz-key-reused'), weight: 1 })
      : fc.constant(null);
  return fc
    .record({ path, query: queryPairs(op, ctx), body, idem: idempotencyKey })
    .chain(({ path, query, body, idem }) => credentials(op, ctx, path).map((creds) => ({ path, query, body, creds, idempotencyKey: idem ?? undefined })));
}

type Mutation = (parts: Parts) => fc.Arbitrary<Partial<FuzzCase> & { parts?: Partial<Parts> }>;

/** Ways to break a request, each applicable to some operations. */
function mutations(op: FuzzOperation): { kind: string; weight: number; apply: Mutation }[] {
  const schema: Json = op.body ? resolveSchema(op.doc, op.body.schema) : {};
  const properties = Object.entries<Json>(schema.properties ?? {});
  const required: string[] = schema.required ?? [];
  const asObject = (b: unknown) => (b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {});
  const out: { kind: string; weight: number; apply: Mutation }[] = [{ kind: 'valid', weight: 5, apply: () => fc.constant({}) }];
  if (properties.length > 0) {
    out.push({
      kind: 'body field broken',
      weight: 5,
      apply: (p) =>
        fc.constantFrom(...properties).chain(([name, prop]) => brokenValue(op.doc, prop).map((v) => ({ parts: { body: { ...asObject(p.body), [name]: v } } }))),
    });
    out.push({
      kind: 'body unknown field',
      weight: 1,
      apply: (p) =>
        fc
          .constantFrom('unexpected', '__proto__', 'constructor', '')
          .map((k) => ({ parts: { body: JSON.parse(`{${JSON.stringify(k)}:1,${JSON.stringify(asObject(p.body)).slice(1)}`.replace(/,}$/, '}')) } })),
    });
  }
  if (required.length > 0)
    out.push({
      kind: 'body required field missing',
      weight: 2,
      apply: (p) =>
        fc.constantFrom(...required).map((k) => ({ parts: { body: Object.fromEntries(Object.entries(asObject(p.body)).filter(([key]) => key !== k)) } })),
    });
  out.push(
    {
      kind: 'body of the wrong type',
      weight: op.body ? 1 : 0.3,
      apply: () => fc.constantFrom<unknown>([], 'x', 1, null, true, [{}], {}).map((b) => ({ body: json(b) })),
    },
    { kind: 'body not UTF-8 or not JSON', weight: op.body ? 2 : 0.5, apply: () => rawBodies.map((b) => ({ body: b })) },
    {
      kind: 'body deeply nested',
      weight: op.body ? 1 : 0.3,
      apply: (p) => fc.constantFrom(5_000, 50_000).chain((d) => fc.boolean().map((arr) => ({ body: deepBody(properties[0]?.[0], asObject(p.body), d, arr) }))),
    },
    {
      kind: 'body over the limit',
      weight: 0.3,
      apply: (p) => fc.constantFrom(1_100_000, 1_048_577).map((n) => ({ body: json({ ...asObject(p.body), [properties[0]?.[0] ?? 'pad']: 'x'.repeat(n) }) })),
    },
    {
      kind: 'wrong content type',
      weight: op.body ? 1 : 0.3,
      apply: () =>
        fc
          .constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/xml',
            'application/json; charset=latin1',
            'application/json; charset=utf-16',
            'application/vnd.api+json',
            'application/json, text/plain',
            '',
          )
          .map((ct) => ({ headers: { 'content-type': ct } })),
    },
  );
  for (const p of op.params.filter((q) => q.in === 'path')) {
    out.push({
      kind: `path ${p.name} broken`,
      weight: 2,
      apply: () =>
        fc
          .oneof(
            brokenRawParam(op.doc, p.schema).filter((v) => v !== ''),
            fc.constantFrom('%E0%A4%A', 'x'.repeat(5000), '99999999999999999999', '-1', encodePathValue(p, "'; SELECT 1 --")),
          )
          .map((v) => ({ parts: { path: { [p.name]: v } }, rawPath: true })),
    });
  }
  const query = op.params.filter((q) => q.in === 'query');
  if (query.length > 0) {
    out.push({
      kind: 'query value broken',
      weight: 3,
      apply: (p) =>
        fc
          .constantFrom(...query)
          .chain((q) => brokenRawParam(op.doc, q.schema).map((v) => ({ parts: { query: [...p.query.filter(([k]) => k !== q.name), [q.name, v]] } }))),
    });
    out.push({
      kind: 'query key repeated',
      weight: 1,
      apply: (p) => fc.constantFrom(...query).map((q) => ({ parts: { query: [...p.query, [q.name, '1'], [q.name, '2']] } })),
    });
  }
  out.push({
    kind: 'query key unknown or nested',
    weight: 1,
    apply: (p) =>
      fc
        .constantFrom(
          ['unknown', '1'],
          [`${query[0]?.name ?? 'limit'}[gt]`, '1'],
          [`${query[0]?.name ?? 'limit'}[]`, '1'],
          ['__proto__[x]', '1'],
          ['constructor[prototype][x]', '1'],
          ['a'.repeat(3000), '1'],
          ['%00', '1'],
        )
        .map((pair) => ({ parts: { query: [...p.query, pair as [string, string]] } })),
  });
  if (op.odata) {
    const names = Object.keys(ODATA_GARBAGE);
    out.push({
      kind: 'OData option unknown or broken',
      weight: 5,
      apply: (p) =>
        fc
          .constantFrom(...names)
          .chain((n) =>
            fc.constantFrom(...ODATA_GARBAGE[n]!).map((v) => ({ parts: { query: [...p.query.filter(([k]) => k !== n), [n, encodeURIComponent(v)]] } })),
          ),
    });
  }
  out.push({
    kind: 'header broken',
    weight: 0.5,
    apply: () =>
      fc
        .constantFrom<Record<string, string>>(
          { 'idempotency-key': 'k'.repeat(300) },
          { 'idempotency-key': '' },
          { 'x-request-id': '../../etc' },
          { accept: 'text/html' },
          { 'x-client-secret': '' },
        )
        .map((headers) => ({ headers })),
  });
  return out.filter((m) => m.weight > 0);
}

/** A body with a value nested `depth` levels deep (as text: JSON.stringify would run out of stack), in `field` or as the whole body. */
function deepBody(field: string | undefined, body: Record<string, unknown>, depth: number, array: boolean): Buffer {
  const deep = array ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  if (field === undefined) return Buffer.from(deep);
  return Buffer.from(JSON.stringify({ ...body, [field]: '__deep__' }).replace('"__deep__"', () => deep));
}

/** Bodies that are not UTF-8 text, or not JSON, or JSON with escapes of lone surrogates. */
const rawBodies = fc.constantFrom(
  Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  Buffer.from('{"name":"\xed\xa0\x80"}', 'latin1'),
  Buffer.from('{"name":"\xc0\xaf"}', 'latin1'),
  Buffer.from('{"name":"\\ud800","email":"\\udfff@example.com","description":"\\ud83d"}'),
  Buffer.from('{"name":"\\u0000"}'),
  Buffer.from('\ufeff{}'),
  Buffer.from('{"a":1,"a":2}'),
  Buffer.from('{'),
  Buffer.from('{"a":'),
  Buffer.from(''),
  Buffer.from('nul\u0000l'),
  Buffer.from('[1,2,'),
  Buffer.from('1e99999'),
  Buffer.from('{"amount":1e400}'),
  Buffer.from('{"__proto__":{"admin":true}}'),
);

/** The arbitrary of fuzz cases for one operation. */
export function fuzzCases(op: FuzzOperation, ctx: FuzzContext): fc.Arbitrary<FuzzCase> {
  const table = mutations(op);
  const mutation = fc.oneof(...table.map((m) => ({ arbitrary: fc.constant(m), weight: Math.max(1, Math.round(m.weight * 2)) })));
  return fc.tuple(validParts(op, ctx), mutation).chain(([parts, m]) =>
    m.apply(parts).map((change) => {
      const merged: Parts = { ...parts, ...change.parts, path: { ...parts.path, ...change.parts?.path } };
      const rawPath = Object.fromEntries(
        op.params
          .filter((p) => p.in === 'path')
          .map((p) => [
            p.name,
            (change as { rawPath?: boolean }).rawPath && change.parts?.path?.[p.name] !== undefined
              ? merged.path[p.name]!
              : encodePathValue(p, merged.path[p.name] ?? 'x'),
          ]),
      );
      const body = change.body ?? (merged.body === undefined ? undefined : json(merged.body));
      const headers: Record<string, string> = { ...merged.creds.headers };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (merged.idempotencyKey) headers['idempotency-key'] = merged.idempotencyKey;
      Object.assign(headers, change.headers);
      return { kind: m.kind, method: op.method, path: fillPath(op, rawPath) + queryString(merged.query), headers, body, auth: merged.creds.label };
    }),
  );
}
