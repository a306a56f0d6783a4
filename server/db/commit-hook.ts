import type { Kysely, TransactionBuilder } from 'kysely';
import type { Trx } from './database.js';
import type { Database } from './schema.js';

/** Work a request adds to the end of every transaction it runs, so that it commits with it. */
export type BeforeCommit = (trx: Trx) => Promise<void>;

/**
 * The same database, except that each `transaction().execute(fn)` runs `beforeCommit` in the
 * transaction after `fn` returns: what it writes commits with the transaction or not at all. The
 * Idempotency-Key of a request marks itself this way (`server/http/idempotency.ts`).
 */
export function withBeforeCommit(db: Kysely<Database>, beforeCommit: BeforeCommit): Kysely<Database> {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'transaction') return () => hooked(target.transaction(), beforeCommit);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function hooked(builder: TransactionBuilder<Database>, beforeCommit: BeforeCommit): TransactionBuilder<Database> {
  const wrapper = {
    setIsolationLevel: (level: Parameters<TransactionBuilder<Database>['setIsolationLevel']>[0]) => hooked(builder.setIsolationLevel(level), beforeCommit),
    setAccessMode: (mode: Parameters<TransactionBuilder<Database>['setAccessMode']>[0]) => hooked(builder.setAccessMode(mode), beforeCommit),
    execute: <T>(fn: (trx: Trx) => Promise<T>): Promise<T> =>
      builder.execute(async (trx) => {
        const result = await fn(trx);
        await beforeCommit(trx);
        return result;
      }),
  };
  return wrapper as unknown as TransactionBuilder<Database>;
}
