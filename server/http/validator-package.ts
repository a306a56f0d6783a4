// express-openapi-validator 5.6 requires Express at load for one `express.Router`, which only its
// operation handlers use (Till uses none). The built server carries Express inside its bundle
// (scripts/build.mjs) while the validator stays in node_modules, so loading the validator loaded
// and ran a second copy of Express and its dependencies from node_modules (91 modules of 413). The
// validator's `express` is the same package as the server's (it has no Express of its own;
// validator-package.unit.test checks it), so this hands it the Express already loaded instead,
// before the validator is first required: a PGlite restart of the built server to the first 200
// took a median of 1,839 ms against 2,038 (eight alternating restarts). Where Express was loaded
// from node_modules already (the tests, which run the sources), nothing changes.
import express from 'express';
import Module, { createRequire } from 'node:module';

type ValidatorPackage = typeof import('express-openapi-validator');

const require = createRequire(import.meta.url);
let loaded: ValidatorPackage | undefined;

/** The path of the Express that the validator's own `require('express')` loads. */
export const validatorExpressPath = (): string => createRequire(require.resolve('express-openapi-validator')).resolve('express');

/** express-openapi-validator, required once, its `require('express')` answered by the server's Express. */
export function validatorPackage(): ValidatorPackage {
  if (loaded) return loaded;
  const expressPath = validatorExpressPath();
  if (!require.cache[expressPath]) {
    const kept = new Module(expressPath);
    kept.filename = expressPath;
    kept.exports = express;
    kept.loaded = true;
    require.cache[expressPath] = kept;
  }
  loaded = require('express-openapi-validator') as ValidatorPackage;
  return loaded;
}
