// Which statements the PostgreSQL pool may send on a shared connection (server/db/pipelined-pool.ts):
// plain reads only, never one that locks, writes, or changes the session.
import { describe, expect, it } from 'vitest';
import { plainRead } from '../../server/db/pipelined-pool.js';

describe('plainRead: what may share a connection', () => {
  it.each([
    ['select * from "plans" where "merchant_id" = $1 and "id" = $2', true],
    ['with page as (select "id" from "invoices") select * from page', true],
    ['SELECT "updated_at", "inserted_count" FROM "deleted_things"', true],
    ['select * from "plans" where "id" = $1 for update', false],
    ['select * from "accounts" for no key update', false],
    ['with moved as (update "a" set "x" = 1 returning *) select * from moved', false],
    ['select pg_advisory_lock(3853314791062309107)', false],
    ["select set_config('lock_timeout', '1', false)", false],
    ["select nextval('invoices_id_seq')", false],
    ['insert into "customers" ("email") values ($1) returning *', false],
    ['update "idempotency_keys" set "state" = $1', false],
    ['begin', false],
  ])('%s → %s', (text, expected) => {
    expect(plainRead(text)).toBe(expected);
  });
});
