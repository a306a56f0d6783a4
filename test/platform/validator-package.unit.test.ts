// The validator is handed the server's own Express (server/http/validator-package.ts): safe only
// while the Express its `require` would load is the very package the server uses.
import { createRequire } from 'node:module';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { validatorExpressPath, validatorPackage } from '../../server/http/validator-package.js';

const require = createRequire(import.meta.url);

describe('express-openapi-validator and Express', () => {
  it("resolves `express` to the server's own package (it has no Express of its own)", () => {
    expect(validatorExpressPath()).toBe(require.resolve('express'));
  });

  it('loads once, and its require of express answers the Express the server runs', () => {
    const validator = validatorPackage();
    expect(validatorPackage()).toBe(validator);
    expect(typeof validator.middleware).toBe('function');
    expect(createRequire(require.resolve('express-openapi-validator'))('express')).toBe(express);
  });
});
