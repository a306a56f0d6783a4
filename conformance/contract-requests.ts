// What the contract cases send and how they judge it: the operation's authentication and credentials, its
// documented examples, a value for nobody's id, a body with one field of the wrong type, and pass or fail.
import { randomUUID } from 'node:crypto';
import type { Recipe } from './recipes/fixtures.js';
import type { Api, ConformanceContext, OperationResult, Outcome, RequestSpec } from './types.js';
import type { OperationInfo } from './validator.js';

export type Json = Record<string, any>;

/** A recipe's success request. */
export type RecipeRequest = Awaited<ReturnType<Recipe['success']>>;

/** What the contract cases of one operation share: the operation, its result so far, and how it is reached. */
export interface OperationCases {
  ctx: ConformanceContext;
  info: OperationInfo;
  result: OperationResult;
  /** Where every answer's contract problems go. */
  problems: string[];
  auth: ReturnType<typeof authOf>;
  recipe: Recipe | undefined;
  /** The recipe's success request, when it gave one. */
  recipeSpec: RecipeRequest | undefined;
  /** Checking a server's behaviour (not a mock's shapes). */
  server: boolean;
}

/** How the operation authenticates, from its security requirements. */
export function authOf(ctx: ConformanceContext, info: OperationInfo): 'public' | 'secret' | 'apiKey' | 'session' {
  const doc = ctx.validator.docs[info.api];
  const security: Json[] = info.operation.security ?? doc.security ?? [];
  if (security.length === 0 || security.some((s) => Object.keys(s).length === 0)) return 'public';
  if (security.some((s) => 'apiKey' in s)) return 'apiKey';
  if (security.some((s) => 'secretKey' in s)) return 'secret';
  return 'session';
}

/** The credentials of the merchant under test for an operation. */
export function credentials(ctx: ConformanceContext, info: OperationInfo, key = ctx.options.secretKey): Pick<RequestSpec, 'key' | 'apiKey'> {
  const auth = authOf(ctx, info);
  if (auth === 'apiKey') return { apiKey: key === ctx.options.secretKey ? (ctx.options.apiKey ?? key) : key };
  if (auth === 'secret') return { key };
  return {};
}

export function parametersOf(ctx: ConformanceContext, info: OperationInfo): Json[] {
  return [...info.pathParameters, ...(info.operation.parameters ?? [])].map((p) => ctx.validator.deref(info.api, p));
}

function exampleOf(ctx: ConformanceContext, api: Api, node: Json | undefined): unknown {
  if (!node) return undefined;
  if (node.example !== undefined) return node.example;
  const first = Object.values<Json>(node.examples ?? {})[0];
  if (first) return ctx.validator.deref(api, first).value;
  const schema = ctx.validator.deref(api, node.schema ?? node);
  if (schema?.examples?.[0] !== undefined) return schema.examples[0];
  if (schema?.default !== undefined) return schema.default;
  if (schema?.enum?.[0] !== undefined) return schema.enum[0];
  return undefined;
}

/** A value for a path parameter that belongs to nobody, valid for its schema. */
export function nobodyValue(ctx: ConformanceContext, api: Api, param: Json): string {
  const schema = ctx.validator.deref(api, param.schema ?? {});
  if (schema.type === 'integer' || schema.type === 'number') return '2147480001';
  if (schema.format === 'uuid') return randomUUID();
  const example = String(exampleOf(ctx, api, param) ?? 'x');
  const prefix = /^[a-z]+_(test|live)_/.exec(example)?.[0] ?? /^[a-z]+_/.exec(example)?.[0] ?? '';
  return `${prefix}${ctx.runId}Nobody`.slice(0, Math.max(example.length, 12) + 8);
}

/** Fills the path template with values. */
export function fillPath(path: string, values: Record<string, string | number>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(values[name] ?? '')));
}

export function exampleRequest(ctx: ConformanceContext, info: OperationInfo): { path: string; body: unknown; query: Record<string, string> } {
  const values: Record<string, string> = {};
  const query: Record<string, string> = {};
  for (const p of parametersOf(ctx, info)) {
    const value = exampleOf(ctx, info.api, p);
    if (p.in === 'path') values[p.name] = String(value ?? '1');
    if (p.in === 'query' && p.required && value !== undefined) query[p.name] = String(value);
  }
  const media = ctx.validator.deref(info.api, info.operation.requestBody)?.content?.['application/json'];
  return { path: fillPath(info.path, values), body: media ? exampleOf(ctx, info.api, media) : undefined, query };
}

/** A copy of a body with its first required field given a value of the wrong type. */
export function corrupt(ctx: ConformanceContext, info: OperationInfo, body: Json): { body: Json; field: string } | undefined {
  const media = ctx.validator.deref(info.api, info.operation.requestBody)?.content?.['application/json'];
  let schema = ctx.validator.deref(info.api, media?.schema);
  if (schema?.allOf) schema = ctx.validator.deref(info.api, schema.allOf.find((s: Json) => ctx.validator.deref(info.api, s).properties) ?? schema);
  const required: string[] = schema?.required ?? [];
  // A field the body has (a required one first), or else any field the body may have (an optional body sent empty).
  const fields = Object.keys(schema?.properties ?? {});
  const field = required.find((f) => f in body) ?? fields.find((f) => f in body) ?? fields[0];
  if (!field) return undefined;
  const prop = ctx.validator.deref(info.api, schema.properties[field]);
  const types = [prop?.type].flat();
  const wrong = types.includes('string') || prop?.$ref || prop?.pattern ? { nested: 'not a string' } : 'not-a-number';
  return { body: { ...body, [field]: wrong }, field };
}

export function pick(ok: boolean, note?: string): { outcome: Outcome; note?: string } {
  return ok ? { outcome: 'passed' } : { outcome: 'failed', ...(note ? { note } : {}) };
}
