// express-openapi-validator 5.6 compiles a path-to-regexp matcher for every route it scans, on
// every request (upstream: cdimascio/express-openapi-validator#1217, "perf: cache route
// matchers", open). The compiled matcher depends only on the route and the options, so this
// memoizes `pathToRegexp` on the very module instance the validator loads. Remove this file once
// the validator caches its matchers itself.
import pathToRegexpExports from 'path-to-regexp';

type PathToRegexp = (path: string, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

let installed = false;

/** Installs the cache once per process. Safe to call again. */
export function cacheValidatorRouteMatchers(): void {
  if (installed) return;
  installed = true;
  // The package's exports object itself (the validator has no copy of its own), in the bundle as in node_modules.
  const pathToRegexpModule = pathToRegexpExports as unknown as { pathToRegexp: PathToRegexp };
  const original = pathToRegexpModule.pathToRegexp;
  const cache = new Map<string, ReturnType<PathToRegexp>>();
  pathToRegexpModule.pathToRegexp = (path, options) => {
    // The validator passes only { sensitive, strict }; a key of two flags costs nothing per request.
    const plain = options === undefined || Object.keys(options).every((k) => k === 'sensitive' || k === 'strict');
    const key = plain ? `${path}\u0000${options?.sensitive ? 1 : 0}${options?.strict ? 1 : 0}` : `${path}\u0000${JSON.stringify(options)}`;
    let compiled = cache.get(key);
    if (!compiled) {
      compiled = original(path, options);
      // Matchers are stateless (no global flag), so one compiled matcher serves every request.
      if (cache.size < 10_000) cache.set(key, compiled);
    }
    return compiled;
  };
}
