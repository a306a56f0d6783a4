// Contract cases for every operation of both documents: the documented success path, and the
// documented errors that can be provoked from outside (401 without a key, 400 naming the field,
// 404 for nobody's id and for another merchant's). Every answer is validated against the
// contract. An operation that answers 501 is not implemented: its cases are pending, never passed.
import { randomUUID } from 'node:crypto';
import { recipes } from './recipes.js';
import type { Api, ConformanceContext, OperationResult, Outcome, RequestSpec } from './types.js';
import type { OperationInfo } from './validator.js';

type Json = Record<string, any>;

/** How the operation authenticates, from its security requirements. */
function authOf(ctx: ConformanceContext, info: OperationInfo): 'public' | 'secret' | 'apiKey' | 'session' {
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

function parametersOf(ctx: ConformanceContext, info: OperationInfo): Json[] {
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
function nobodyValue(ctx: ConformanceContext, api: Api, param: Json): string {
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

function exampleRequest(ctx: ConformanceContext, info: OperationInfo): { path: string; body: unknown; query: Record<string, string> } {
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
function corrupt(ctx: ConformanceContext, info: OperationInfo, body: Json): { body: Json; field: string } | undefined {
  const media = ctx.validator.deref(info.api, info.operation.requestBody)?.content?.['application/json'];
  let schema = ctx.validator.deref(info.api, media?.schema);
  if (schema?.allOf) schema = ctx.validator.deref(info.api, schema.allOf.find((s: Json) => ctx.validator.deref(info.api, s).properties) ?? schema);
  const required: string[] = schema?.required ?? [];
  const field = required.find((f) => f in body) ?? Object.keys(schema?.properties ?? {}).find((f) => f in body);
  if (!field) return undefined;
  const prop = ctx.validator.deref(info.api, schema.properties[field]);
  const types = [prop?.type].flat();
  const wrong = types.includes('string') || prop?.$ref || prop?.pattern ? { nested: 'not a string' } : 'not-a-number';
  return { body: { ...body, [field]: wrong }, field };
}

function pick(ok: boolean, note?: string): { outcome: Outcome; note?: string } {
  return ok ? { outcome: 'passed' } : { outcome: 'failed', ...(note ? { note } : {}) };
}

/** Runs every contract case of one operation. */
export async function checkOperation(ctx: ConformanceContext, info: OperationInfo): Promise<OperationResult> {
  const problems: string[] = [];
  const result: OperationResult = {
    api: info.api,
    operationId: info.operationId,
    method: info.method,
    path: info.path,
    implemented: 'unknown',
    success: { outcome: 'pending', note: 'not checked' },
    errors: [],
    schemaValid: true,
    problems,
  };
  const auth = authOf(ctx, info);
  const recipe = recipes[info.operationId];
  const server = ctx.options.target === 'server';
  const documented = Object.keys(info.operation.responses ?? {});
  const successCodes = documented.filter((c) => c.startsWith('2')).map(Number);

  // The success path.
  let recipeSpec: Awaited<ReturnType<NonNullable<typeof recipe>['success']>> | undefined;
  let recipePending: string | undefined;
  if (recipe) {
    try {
      recipeSpec = await recipe.success(ctx, info);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!message.startsWith('PENDING:')) throw err;
      recipePending = message.slice('PENDING:'.length).trim();
    }
  }
  if (recipe && recipePending) {
    result.success = { outcome: 'pending', note: recipePending };
  } else if (recipe && recipeSpec) {
    const spec = recipeSpec;
    const res = await ctx.request(info.api, info.operationId, { method: info.method, ...credentials(ctx, info), ...spec }, problems);
    const expected = recipe.expect ?? successCodes;
    if (res.status === 501 && !expected.includes(501)) {
      result.implemented = false;
    } else {
      result.implemented = true;
      result.success = pick(expected.includes(res.status), `expected ${expected.join('/')}, got ${res.status}: ${res.text.slice(0, 200)}`);
    }
  } else if (!server) {
    const ex = exampleRequest(ctx, info);
    const res = await ctx.request(
      info.api,
      info.operationId,
      {
        method: info.method,
        path: ex.path,
        query: ex.query,
        ...(ex.body !== undefined ? { body: ex.body } : {}),
        ...credentials(ctx, info),
        ...(auth === 'session'
          ? { key: ctx.options.publishableKey ?? 'pk_test_conformance0000000000000000', clientSecret: 'cs_test_conformance_secret_conformance' }
          : {}),
      },
      problems,
    );
    result.implemented = true;
    result.success = pick(
      successCodes.includes(res.status) || (successCodes.length === 0 && documented.includes(String(res.status))),
      `expected ${successCodes.join('/')}, got ${res.status}`,
    );
  } else if (auth === 'session') {
    result.success = { outcome: 'pending', note: 'needs a checkout session: no recipe yet' };
  } else {
    // Probe with nobody's ids and an empty body: 501 means not implemented; anything else means
    // the suite lacks a recipe for an implemented operation.
    const values = Object.fromEntries(
      parametersOf(ctx, info)
        .filter((p) => p.in === 'path')
        .map((p) => [p.name, nobodyValue(ctx, info.api, p)]),
    );
    const hasBody = Boolean(info.operation.requestBody);
    const res = await ctx.request(
      info.api,
      info.operationId,
      { method: info.method, path: fillPath(info.path, values), ...(hasBody ? { body: {} } : {}), ...credentials(ctx, info) },
      problems,
    );
    if (res.status === 501 && !(ctx.options.implemented?.has(info.operationId) ?? false)) {
      result.implemented = false;
    } else {
      result.implemented = true;
      result.success = {
        outcome: 'failed',
        note: `implemented (answered ${res.status}) but the suite has no recipe for its success path: add one to conformance/recipes.ts`,
      };
    }
  }
  if (ctx.options.implemented && server) result.implemented = ctx.options.implemented.has(info.operationId) && result.implemented !== false;

  const notImplemented = result.implemented === false;
  const addError = async (name: string, run: () => Promise<{ outcome: Outcome; note?: string }>) => {
    if (notImplemented) {
      result.errors.push({ name, outcome: 'pending', note: 'not implemented (501)' });
      return;
    }
    result.errors.push({ name, ...(await run()) });
  };
  const isErrorShape = (json: any, status: number) => (json?.error?.type !== undefined || json?.success === false) && status >= 400;
  const paramOf = (json: any) => json?.error?.param ?? json?.data?.param;

  // 401 without a key.
  if (auth !== 'public') {
    await addError('401 without a key', async () => {
      const ex = recipeSpec ?? exampleRequest(ctx, info);
      const res = await ctx.request(
        info.api,
        info.operationId,
        { method: info.method, path: ex.path, ...('body' in ex && ex.body !== undefined ? { body: ex.body } : {}) },
        problems,
      );
      return pick(res.status === 401 && isErrorShape(res.json, res.status), `got ${res.status}`);
    });
  }

  // 400 with an invalid body, naming the field.
  if (info.operation.requestBody && auth !== 'session') {
    await addError('400 invalid body names the field', async () => {
      const base = recipeSpec ?? exampleRequest(ctx, info);
      const bad = base.body && typeof base.body === 'object' ? corrupt(ctx, info, base.body as Json) : undefined;
      if (!bad) return { outcome: 'pending', note: 'no field to corrupt' };
      const res = await ctx.request(info.api, info.operationId, { method: info.method, path: base.path, body: bad.body, ...credentials(ctx, info) }, problems);
      if (res.status === 501) return { outcome: 'pending', note: 'not implemented (501)' };
      if (!server) return pick(res.status === 400, `got ${res.status}`);
      return pick(
        res.status === 400 && paramOf(res.json) === bad.field,
        `expected 400 with param "${bad.field}", got ${res.status} param "${paramOf(res.json)}"`,
      );
    });
  }

  // 404 for an id that belongs to nobody, and for another merchant's.
  const pathParams = parametersOf(ctx, info).filter((p) => p.in === 'path');
  if (server && pathParams.length > 0 && auth !== 'session' && auth !== 'public' && info.operationId !== 'createClientToken') {
    await addError("404 for nobody's id", async () => {
      const base = recipeSpec ?? exampleRequest(ctx, info);
      const values = Object.fromEntries(pathParams.map((p) => [p.name, nobodyValue(ctx, info.api, p)]));
      const res = await ctx.request(
        info.api,
        info.operationId,
        {
          method: info.method,
          path: fillPath(info.path, values),
          ...('body' in base && base.body !== undefined ? { body: base.body } : {}),
          ...('query' in base && base.query !== undefined ? { query: base.query } : {}),
          ...credentials(ctx, info),
        },
        problems,
      );
      return pick(res.status === 404 && isErrorShape(res.json, res.status), `got ${res.status}: ${res.text.slice(0, 160)}`);
    });
    if (recipe?.foreign) {
      await addError("404 for another merchant's id", async () => {
        if (!ctx.options.otherSecretKey) return { outcome: 'pending', note: 'needs --other-secret-key' };
        const spec = await recipe.foreign!(ctx, info, ctx.options.otherSecretKey);
        const res = await ctx.request(info.api, info.operationId, { method: info.method, ...credentials(ctx, info), ...spec }, problems);
        return pick(res.status === 404, `got ${res.status}`);
      });
    }
  }

  result.schemaValid = problems.length === 0;
  return result;
}
