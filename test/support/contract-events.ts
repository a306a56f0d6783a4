// The contract's `webhooks` section compiled with Ajv: an event body must match its type's schema.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

const contract = JSON.parse(readFileSync(new URL('../../generated/checkout.openapi.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
for (const format of ['int32', 'int64', 'float', 'double', 'binary', 'byte', 'password']) ajv.addFormat(format, true);
ajv.addSchema(contract, 'checkout.json');
const validators = new Map<string, ValidateFunction>();

/** Fails the test unless `body` (an event envelope) matches the contract's schema for its `type`. */
export function expectEventMatchesContract(body: { type: string }): void {
  expect(contract.webhooks[body.type], `webhooks.${body.type} in the contract`).toBeDefined();
  let validate = validators.get(body.type);
  if (!validate) {
    validate = ajv.compile({ $ref: `checkout.json#/webhooks/${body.type}/post/requestBody/content/application~1json/schema` });
    validators.set(body.type, validate);
  }
  const ok = validate(body);
  expect(ok ? [] : validate.errors, `${body.type} against the contract`).toEqual([]);
}
