// How the Commerce recipes make what they need: a request of the run's merchant (or another's) that must
// succeed, and a recipe on one object of the run's merchant and, for the 404 check, of another.
import { type Recipe } from './fixtures.js';
import type { ConformanceContext, RequestSpec } from '../types.js';

/** A commerce request of the run's merchant (or of `key`'s): its JSON, or a setup error. */
export async function commerceJson(
  ctx: ConformanceContext,
  operationId: string,
  spec: Omit<RequestSpec, 'apiKey'>,
  key = ctx.options.apiKey ?? ctx.options.secretKey,
): Promise<any> {
  const res = await ctx.request('commerce', operationId, { ...spec, apiKey: key });
  if (res.status >= 300) throw new Error(`setup: ${operationId} answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.json;
}
/**
 * An operation on one object: the run merchant's own (success) and, for the 404 check, one of
 * the merchant behind `key` (foreign), the same request otherwise.
 */
export function onOwnAndForeign<T>(
  fixture: (ctx: ConformanceContext, key?: string) => Promise<T>,
  path: (made: T) => string,
  body?: (ctx: ConformanceContext) => unknown,
): Recipe {
  const request = async (ctx: ConformanceContext, key?: string) => ({ path: path(await fixture(ctx, key)), ...(body ? { body: body(ctx) } : {}) });
  return { success: (ctx) => request(ctx), foreign: (ctx, _info, key) => request(ctx, key) };
}
