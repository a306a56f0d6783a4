// The validator's check of the OpenAPI document itself, compiled only when asked for
// (server/http/validator-spec-schema.ts): asked, it still finds what is wrong in a document; not
// asked, it checks nothing, as before.
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { compileSpecSchemaOnDemand, schemaValidatorModule } from '../../server/http/validator-spec-schema.js';

const require = createRequire(import.meta.url);
type Framework = new (args: { apiDoc: unknown; validateApiSpec: boolean; $refParser?: { mode: string } }) => { initialize(visitor: object): Promise<unknown> };
const { OpenAPIFramework } = createRequire(require.resolve('express-openapi-validator'))('./framework/index.js') as { OpenAPIFramework: Framework };

const valid = {
  openapi: '3.1.0',
  info: { title: 'Plans', version: '1' },
  paths: { '/plans': { get: { responses: { '200': { description: 'The plans' } } } } },
};
// `info` lacks its version, and a response lacks its description.
const invalid = { openapi: '3.1.0', info: { title: 'Plans' }, paths: { '/plans': { get: { responses: { '200': {} } } } } };

describe('the OpenAPI document check, compiled on demand', () => {
  compileSpecSchemaOnDemand();

  it('is the class the validator constructs once installed', () => {
    expect(schemaValidatorModule().OpenAPISchemaValidator.name).toBe('OnDemandSchemaValidator');
  });

  it('finds what is wrong in a document, and nothing in a valid one', () => {
    const { OpenAPISchemaValidator } = schemaValidatorModule();
    const check = new OpenAPISchemaValidator({ version: '3.1.0', validateApiSpec: true });
    expect(check.validate(valid).errors).toEqual([]);
    const errors = check.validate(invalid).errors as { instancePath: string; params: { missingProperty?: string } }[];
    expect(errors.map((e) => `${e.instancePath} ${e.params.missingProperty ?? ''}`)).toEqual(
      expect.arrayContaining(['/info version', '/paths/~1plans/get/responses/200 description']),
    );
    // Another instance shares the compiled check, and its answer is its own.
    expect(new OpenAPISchemaValidator({ version: '3.1.0', validateApiSpec: true }).validate(valid).errors).toEqual([]);
  });

  it('still refuses an invalid document when the validator is asked to check it, and does not check one when not asked', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {}); // the validator prints the errors it throws for
    await expect(new OpenAPIFramework({ apiDoc: structuredClone(invalid), validateApiSpec: true }).initialize({})).rejects.toThrow('args.apiDoc was invalid');
    await expect(new OpenAPIFramework({ apiDoc: structuredClone(invalid), validateApiSpec: false }).initialize({})).resolves.toBeDefined();
    expect(printed).toHaveBeenCalled();
    printed.mockRestore();
  });
});
