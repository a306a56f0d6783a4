// express-openapi-validator 5.6 compiles the schema of OpenAPI documents themselves (the 3.1
// meta-schema, with Ajv) in every validator it builds, even with `validateApiSpec: false`, when
// nothing will ever be checked against it. Till builds one validator per operation on its first
// request (validation.ts), so each operation's first request paid about 190 ms for a schema it
// never used: most of the first request after a start (measured on PGlite: 500 ms from the
// request to its answer). This replaces the class the validator constructs, on the very module
// instance it loads, with one that compiles the meta-schema on its first `validate` and shares it
// by OpenAPI version. `validateApiSpec: true` still checks the document, as before. Remove this
// file once the validator compiles that schema only when asked to validate the document.
import schemaValidatorExports from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';

interface SchemaValidatorOptions {
  version: string;
  validateApiSpec: boolean;
}
interface SchemaValidator {
  validate(apiDoc: unknown): { errors: unknown[] };
}
type SchemaValidatorClass = new (options: SchemaValidatorOptions) => SchemaValidator;

/** The module of the validator's package that exports the class (the same instance its framework requires). */
export function schemaValidatorModule(): { OpenAPISchemaValidator: SchemaValidatorClass } {
  return schemaValidatorExports as unknown as { OpenAPISchemaValidator: SchemaValidatorClass };
}

let installed = false;

/** Installs the on-demand class once per process. Safe to call again. */
export function compileSpecSchemaOnDemand(): void {
  if (installed) return;
  installed = true;
  const module = schemaValidatorModule();
  const Eager = module.OpenAPISchemaValidator;
  const compiled = new Map<string, SchemaValidator>();
  module.OpenAPISchemaValidator = class OnDemandSchemaValidator implements SchemaValidator {
    constructor(private readonly options: SchemaValidatorOptions) {}

    validate(apiDoc: unknown): { errors: unknown[] } {
      // Ajv's compiled function keeps the last errors on itself; validate reads them at once, so one serves every caller.
      const key = `${this.options.version} ${this.options.validateApiSpec}`;
      let validator = compiled.get(key);
      if (!validator) compiled.set(key, (validator = new Eager(this.options)));
      return validator.validate(apiDoc);
    }
  };
}
