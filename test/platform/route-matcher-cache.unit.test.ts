// The validator's route matchers, compiled once per route (server/http/route-matcher-cache.ts): the
// cache sits on the very path-to-regexp module the validator calls, whether it runs from
// node_modules (the tests) or from the server's bundle (the same module object there too).
import { createRequire } from 'node:module';
import pathToRegexpExports from 'path-to-regexp';
import { describe, expect, it } from 'vitest';
import { cacheValidatorRouteMatchers } from '../../server/http/route-matcher-cache.js';

const require = createRequire(import.meta.url);
type PathToRegexp = (path: string, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

describe("the validator's route matchers", () => {
  it('are compiled once per route and options, on the module the validator requires', () => {
    cacheValidatorRouteMatchers();
    const validators = createRequire(require.resolve('express-openapi-validator'))('path-to-regexp') as { pathToRegexp: PathToRegexp };
    expect(validators).toBe(pathToRegexpExports);
    const first = validators.pathToRegexp('/v1/plans/:id', { sensitive: false, strict: false });
    expect(validators.pathToRegexp('/v1/plans/:id', { sensitive: false, strict: false })).toBe(first);
    expect(first.regexp.test('/v1/plans/42')).toBe(true);
    expect(first.regexp.test('/v1/plans')).toBe(false);
    // Another route, or other options, is its own matcher.
    expect(validators.pathToRegexp('/v1/plans/:id', { sensitive: true, strict: false })).not.toBe(first);
    expect(validators.pathToRegexp('/v1/products/:id', { sensitive: false, strict: false }).regexp.test('/v1/plans/42')).toBe(false);
  });
});
