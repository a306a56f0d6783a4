// The parts of a request the contract describes besides its body: the caller's credentials (per
// the operation's security alternatives, and sometimes none or the wrong ones), the path values
// (real ids of the fixtures, or generated) and the query.
import fc from 'fast-check';
import { encodeText } from './broken-values.js';
import type { FuzzOperation, ParamSpec } from './contract.js';
import { type KnownIds, validValue } from './valid-values.js';

export interface Session {
  id: string;
  clientSecret: string;
}

/** What the fixtures made: keys, sessions, and real ids. */
export interface FuzzContext {
  keys: { secret: string; publishable: string; liveSecret: string; otherSecret: string; otherPublishable: string };
  sessions: Session[];
  otherSession: Session;
  /** Real ids by body property or query parameter name. */
  known: KnownIds;
  /** Real ids for a path parameter of an operation. */
  pathIds(op: FuzzOperation, param: string): string[];
}

export interface Credentials {
  label: string;
  headers: Record<string, string>;
}

/** The session a client-secret operation acts on: the one in the path when it is a session id. */
function sessionFor(ctx: FuzzContext, pathValues: Record<string, string>): Session {
  return ctx.sessions.find((s) => s.id === pathValues.id) ?? ctx.sessions[0]!;
}

/** The credentials the operation asks for (its first security alternative). */
function rightCredentials(op: FuzzOperation, ctx: FuzzContext, pathValues: Record<string, string>): Credentials {
  const first = op.security[0] ?? [];
  const session = sessionFor(ctx, pathValues);
  if (op.security.length === 0 || first.length === 0) return { label: 'public', headers: {} };
  if (first.includes('apiKey')) return { label: 'api key', headers: { 'x-api-key': ctx.keys.secret } };
  if (first.includes('secretKey')) return { label: 'secret key', headers: { authorization: `Bearer ${ctx.keys.secret}` } };
  if (first.includes('publishableKey'))
    return { label: 'publishable key + client secret', headers: { authorization: `Bearer ${ctx.keys.publishable}`, 'x-client-secret': session.clientSecret } };
  return { label: 'client secret', headers: { 'x-client-secret': session.clientSecret } };
}

/** Right credentials most of the time; otherwise none, wrong, another merchant's, the wrong kind, malformed or live. */
export function credentials(op: FuzzOperation, ctx: FuzzContext, pathValues: Record<string, string>): fc.Arbitrary<Credentials> {
  const right = rightCredentials(op, ctx, pathValues);
  const header = op.api === 'commerce' ? 'x-api-key' : 'authorization';
  const key = (k: string) => (op.api === 'commerce' ? k : `Bearer ${k}`);
  const secret = sessionFor(ctx, pathValues).clientSecret;
  const wrong: Credentials[] = [
    { label: 'none', headers: {} },
    { label: 'unknown key', headers: { [header]: key('sk_test_' + 'A'.repeat(24)) } },
    { label: "another merchant's key", headers: { [header]: key(ctx.keys.otherSecret) } },
    { label: 'publishable where secret', headers: { [header]: key(ctx.keys.publishable), 'x-client-secret': secret } },
    { label: 'secret with client secret', headers: { authorization: `Bearer ${ctx.keys.secret}`, 'x-client-secret': secret } },
    { label: 'malformed authorization', headers: { authorization: 'Basic c2tfdGVzdF94Og==' } },
    { label: 'empty bearer', headers: { authorization: 'Bearer ' } },
    { label: 'huge key', headers: { [header]: key('sk_test_' + 'k'.repeat(8000)) } },
    { label: 'live key', headers: { [header]: key(ctx.keys.liveSecret) } },
    {
      label: "another session's client secret",
      headers: { authorization: `Bearer ${ctx.keys.publishable}`, 'x-client-secret': ctx.otherSession.clientSecret },
    },
    {
      label: 'forged client secret',
      headers: { authorization: `Bearer ${ctx.keys.publishable}`, 'x-client-secret': `${pathValues.id ?? 'cs_test_x'}_secret_forged` },
    },
    { label: 'client secret alone', headers: { 'x-client-secret': secret } },
  ];
  return fc.oneof({ arbitrary: fc.constant(right), weight: 10 }, { arbitrary: fc.constantFrom(...wrong), weight: 2 });
}

/** A parameter's value as text on the wire (booleans and numbers as JSON writes them). */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** A path value: a real id most of the time, else one generated from the parameter's schema. */
export function pathValue(op: FuzzOperation, ctx: FuzzContext, p: ParamSpec): fc.Arbitrary<string> {
  const generated = validValue(op.doc, p.schema, ctx.known, p.name)
    .map(asText)
    .filter((s) => s.length > 0);
  const ids = ctx.pathIds(op, p.name);
  return ids.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 4 }, { arbitrary: generated, weight: 1 }) : generated;
}

/** Writes one path value into the template: percent-encoded, and a quote written twice in a quoted OData key. */
export function encodePathValue(p: ParamSpec, value: string): string {
  return encodeText(p.quoted ? value.replaceAll("'", "''") : value);
}

export function fillPath(op: FuzzOperation, raw: Record<string, string>): string {
  return op.template.replace(/\{([^}]+)\}/g, (_m, name: string) => raw[name] ?? 'x');
}

/** Query pairs (raw, already encoded): the required parameters always, the others sometimes. */
export function queryPairs(op: FuzzOperation, ctx: FuzzContext): fc.Arbitrary<[string, string][]> {
  const params = op.params.filter((p) => p.in === 'query');
  if (params.length === 0) return fc.constant([]);
  const entries = params.map((p) => fc.tuple(fc.constant(p), p.required ? fc.constant(true) : fc.boolean(), validValue(op.doc, p.schema, ctx.known, p.name)));
  return fc.tuple(...entries).map((chosen) => {
    const pairs: [string, string][] = [];
    for (const [p, include, value] of chosen) {
      if (!include) continue;
      if (Array.isArray(value)) for (const v of value) pairs.push([encodeText(p.name), encodeText(asText(v))]);
      else if (value !== null && typeof value === 'object') continue;
      else pairs.push([encodeText(p.name), encodeText(asText(value))]);
    }
    return pairs;
  });
}

export const queryString = (pairs: [string, string][]) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`);
