// The contract's `webhooks` section compiled with Ajv: an event as Till delivers it (its envelope)
// must match the schema of its type. For tests that read events from the outbox.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { eventEnvelope } from '../../server/api/checkout/views/event.view.js';
import { toEventRecord } from '../../server/domain/events/event.service.js';
import type { Database } from '../../server/db/schema.js';
import type { Kysely } from 'kysely';

const contract = JSON.parse(readFileSync(new URL('../../generated/checkout.openapi.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
for (const format of ['int32', 'int64', 'float', 'double', 'binary', 'byte', 'password']) ajv.addFormat(format, true);
ajv.addSchema(contract, 'checkout.json');
const validators = new Map<string, ValidateFunction>();

/** Fails unless the delivered envelope of an event validates against its type's schema in the contract. */
export function expectEventMatchesContract(envelope: { type: string }): void {
  const type = envelope.type;
  expect(contract.webhooks[type], `webhooks.${type} in the contract`).toBeDefined();
  let validate = validators.get(type);
  if (!validate) {
    validate = ajv.compile({
      $ref: `checkout.json#/webhooks/${type.replace(/~/g, '~0').replace(/\//g, '~1')}/post/requestBody/content/application~1json/schema`,
    });
    validators.set(type, validate);
  }
  const ok = validate(envelope);
  expect(ok ? [] : validate.errors, `${type} envelope against the contract`).toEqual([]);
}

/** A merchant's test-mode events as delivered (envelopes), in the order they were written; each validated against the contract. */
export async function deliveredEvents(db: Kysely<Database>, merchantId: number, prefix = ''): Promise<any[]> {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('livemode', '=', false)
    .where('type', 'like', `${prefix}%`)
    .orderBy('seq')
    .execute();
  return rows.map((row) => {
    const envelope = eventEnvelope(toEventRecord(row)) as any;
    expectEventMatchesContract(envelope);
    return envelope;
  });
}
