// Contract cases for every operation of both documents: the documented success path, and the
// documented errors that can be provoked from outside (401 without a key, 400 naming the field,
// 404 for nobody's id and for another merchant's; in contract-errors.ts). Every answer is validated
// against the contract. An operation that answers 501 is not implemented: its cases are pending,
// never passed.
import { checkErrors } from './contract-errors.js';
import {
  authOf,
  credentials,
  exampleRequest,
  fillPath,
  nobodyValue,
  type OperationCases,
  parametersOf,
  pick,
  type RecipeRequest,
} from './contract-requests.js';
import type { Recipe } from './recipes/fixtures.js';
import { recipes } from './recipes.js';
import type { ConformanceContext, OperationResult } from './types.js';
import type { OperationInfo } from './validator.js';

/** The recipe's success request, or why it is pending (a recipe throws `PENDING: why`). */
async function recipeRequest(ctx: ConformanceContext, info: OperationInfo, recipe: Recipe | undefined): Promise<{ spec?: RecipeRequest; pending?: string }> {
  if (!recipe) return {};
  try {
    return { spec: await recipe.success(ctx, info) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!message.startsWith('PENDING:')) throw err;
    return { pending: message.slice('PENDING:'.length).trim() };
  }
}

/** The success path by the recipe's request. */
async function successByRecipe({ ctx, info, result, problems }: OperationCases, recipe: Recipe, spec: RecipeRequest, successCodes: number[]): Promise<void> {
  const expected = recipe.expect ?? successCodes;
  // A mock answers an operation without a success (a test helper that always fails) with whatever it
  // picks first; Prism answers the documented status asked for with `Prefer: code=…`.
  const prefer = ctx.options.target === 'mock' && !expected.some((s) => s < 300) ? { headers: { ...spec.headers, Prefer: `code=${expected[0]}` } } : {};
  const res = await ctx.request(info.api, info.operationId, { method: info.method, ...credentials(ctx, info), ...spec, ...prefer }, problems);
  if (res.status === 501 && !expected.includes(501)) {
    result.implemented = false;
  } else {
    result.implemented = true;
    result.success = pick(expected.includes(res.status), `expected ${expected.join('/')}, got ${res.status}: ${res.text.slice(0, 200)}`);
  }
}

/** Against a mock: the success path by the documented example. */
async function successByExample({ ctx, info, result, problems, auth }: OperationCases, successCodes: number[], documented: string[]): Promise<void> {
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
}

/**
 * On a server, without a recipe: probes with nobody's ids and an empty body. 501 means not
 * implemented; anything else means the suite lacks a recipe for an implemented operation.
 */
async function probeWithoutRecipe({ ctx, info, result, problems }: OperationCases): Promise<void> {
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

/** The success case, and whether the operation is implemented. */
async function checkSuccess(c: OperationCases, recipePending: string | undefined): Promise<void> {
  const { ctx, info, result, recipe, recipeSpec, auth, server } = c;
  const documented = Object.keys(info.operation.responses ?? {});
  const successCodes = documented.filter((code) => code.startsWith('2')).map(Number);
  if (recipe && recipePending) result.success = { outcome: 'pending', note: recipePending };
  else if (recipe && recipeSpec) await successByRecipe(c, recipe, recipeSpec, successCodes);
  else if (!server) await successByExample(c, successCodes, documented);
  else if (auth === 'session') result.success = { outcome: 'pending', note: 'needs a checkout session: no recipe yet' };
  else await probeWithoutRecipe(c);
  if (ctx.options.implemented && server) result.implemented = ctx.options.implemented.has(info.operationId) && result.implemented !== false;
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
  const recipe = recipes[info.operationId];
  const { spec, pending } = await recipeRequest(ctx, info, recipe);
  const cases: OperationCases = { ctx, info, result, problems, auth: authOf(ctx, info), recipe, recipeSpec: spec, server: ctx.options.target === 'server' };
  await checkSuccess(cases, pending);
  await checkErrors(cases);
  result.schemaValid = problems.length === 0;
  return result;
}
