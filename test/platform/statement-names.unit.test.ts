// Which statements get a name, and so run as prepared statements on PostgreSQL
// (server/db/prepared-statements.ts): a precompiled one with values, any other with values (from its
// second run) but an ON CONFLICT, up to a limit, named anew after a stale one.
import { describe, expect, it } from 'vitest';
import { markPreparable, StatementNames } from '../../server/db/prepared-statements.js';

describe('StatementNames', () => {
  const values = [1];
  const text = (t: string) => (markPreparable(t), t);

  it('names a precompiled statement with values, and keeps that name', () => {
    const names = new StatementNames();
    const named = names.config(text('select $1 from precompiled'), values);
    expect(named.name).toMatch(/^till_\d+_\d+$/);
    expect(names.config('select $1 from precompiled', [2])).toEqual({ name: named.name, text: 'select $1 from precompiled', values: [2] });
  });

  it('names any other statement with values from its second run, and keeps that name', () => {
    const names = new StatementNames();
    expect(names.config('select $1 from elsewhere', values)).toEqual({ text: 'select $1 from elsewhere', values });
    const named = names.config('select $1 from elsewhere', [2]);
    expect(named.name).toMatch(/^till_\d+_\d+$/);
    expect(names.config('select $1 from elsewhere', [3]).name).toBe(named.name);
    expect(names.config('select $1 from once', values).name).toBeUndefined();
  });

  it('never names an ON CONFLICT outside a precompiled query, nor a statement without values', () => {
    const names = new StatementNames();
    const upsert = 'insert into "owners" ("merchant") values ($1) on conflict ("merchant") where "owner" = $2 do nothing';
    for (let i = 0; i < 3; i++) expect(names.config(upsert, [1, true])).toEqual({ text: upsert, values: [1, true] });
    for (let i = 0; i < 3; i++) expect(names.config('INSERT INTO t VALUES ($1) ON\n  CONFLICT DO NOTHING', values).name).toBeUndefined();
    expect(names.config(text('insert into "claims" ("key") values ($1) on conflict ("key") do nothing'), values).name).toBeDefined();
    expect(names.config(text('select 1; select 2'), []).name).toBeUndefined();
  });

  it('names at most its limit of statements; the others run unnamed', () => {
    const names = new StatementNames(2);
    const named = ['a $1', 'b $1', 'c $1'].map((t) => names.config(text(t), values).name);
    expect(named.filter(Boolean)).toHaveLength(2);
    expect(named[2]).toBeUndefined();
  });

  it('after a stale prepared statement, names every statement anew; other errors change nothing', () => {
    const names = new StatementNames();
    const first = names.config(text('select $1 from renewed'), values);
    expect(names.renewAfter(Object.assign(new Error('division by zero'), { code: '22012' }), first)).toBe(false);
    expect(names.config('select $1 from renewed', values).name).toBe(first.name);
    expect(names.renewAfter(Object.assign(new Error('cached plan must not change result type'), { code: '0A000' }), first)).toBe(true);
    const renewed = names.config('select $1 from renewed', values).name;
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(first.name);
  });
});
