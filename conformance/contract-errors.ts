// The contract's error cases of one operation: 401 without a key, 400 naming the field of an invalid
// body, and 404 for an id that belongs to nobody and for another merchant's.
import { corrupt, credentials, exampleRequest, fillPath, type Json, nobodyValue, type OperationCases, parametersOf, pick } from './contract-requests.js';
import type { Outcome } from './types.js';

type CaseOutcome = { outcome: Outcome; note?: string };

const isErrorShape = (json: any, status: number) => (json?.error?.type !== undefined || json?.success === false) && status >= 400;
const paramOf = (json: any) => json?.error?.param ?? json?.data?.param;

/** Records an error case; pending when the operation is not implemented. */
async function addError(c: OperationCases, name: string, run: () => Promise<CaseOutcome>): Promise<void> {
  if (c.result.implemented === false) {
    c.result.errors.push({ name, outcome: 'pending', note: 'not implemented (501)' });
    return;
  }
  c.result.errors.push({ name, ...(await run()) });
}

/** 401 without a key. */
async function withoutKey({ ctx, info, recipeSpec, problems }: OperationCases): Promise<CaseOutcome> {
  const ex = recipeSpec ?? exampleRequest(ctx, info);
  const res = await ctx.request(
    info.api,
    info.operationId,
    { method: info.method, path: ex.path, ...('body' in ex && ex.body !== undefined ? { body: ex.body } : {}) },
    problems,
  );
  return pick(res.status === 401 && isErrorShape(res.json, res.status), `got ${res.status}`);
}

/** 400 with an invalid body, naming the field. */
async function invalidBody({ ctx, info, recipeSpec, problems, server }: OperationCases): Promise<CaseOutcome> {
  const base = recipeSpec ?? exampleRequest(ctx, info);
  // An optional body the success path leaves out is corrupted from empty.
  const bad = corrupt(ctx, info, base.body && typeof base.body === 'object' ? (base.body as Json) : {});
  if (!bad) return { outcome: 'pending', note: 'no field to corrupt' };
  const res = await ctx.request(info.api, info.operationId, { method: info.method, path: base.path, body: bad.body, ...credentials(ctx, info) }, problems);
  if (res.status === 501) return { outcome: 'pending', note: 'not implemented (501)' };
  if (!server) return pick(res.status === 400, `got ${res.status}`);
  return pick(res.status === 400 && paramOf(res.json) === bad.field, `expected 400 with param "${bad.field}", got ${res.status} param "${paramOf(res.json)}"`);
}

/** 404 for an id that belongs to nobody. */
async function nobodysId({ ctx, info, recipeSpec, problems }: OperationCases, pathParams: Json[]): Promise<CaseOutcome> {
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
}

/** 404 for another merchant's id (the recipe's `foreign` request). */
async function anotherMerchantsId({ ctx, info, recipe, problems }: OperationCases): Promise<CaseOutcome> {
  if (!ctx.options.otherSecretKey) return { outcome: 'pending', note: 'needs --other-secret-key' };
  const spec = await recipe!.foreign!(ctx, info, ctx.options.otherSecretKey);
  const res = await ctx.request(info.api, info.operationId, { method: info.method, ...credentials(ctx, info), ...spec }, problems);
  return pick(res.status === 404, `got ${res.status}`);
}

/** Runs the error cases that apply to the operation, in order, into its result. */
export async function checkErrors(c: OperationCases): Promise<void> {
  const { ctx, info, auth, server } = c;
  if (auth !== 'public') await addError(c, '401 without a key', () => withoutKey(c));
  if (info.operation.requestBody && auth !== 'session') await addError(c, '400 invalid body names the field', () => invalidBody(c));
  const pathParams = parametersOf(ctx, info).filter((p) => p.in === 'path');
  if (server && pathParams.length > 0 && auth !== 'session' && auth !== 'public' && info.operationId !== 'createClientToken') {
    await addError(c, "404 for nobody's id", () => nobodysId(c, pathParams));
    if (c.recipe?.foreign) await addError(c, "404 for another merchant's id", () => anotherMerchantsId(c));
  }
}
