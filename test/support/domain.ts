// The domain project's fixture: a test file that calls the services directly gets a database of
// its own (a copy of the run's template) with useTestDatabase(), as an HTTP test gets its server
// with useTestServer(). Apart from database.ts, which the global setup imports outside a test.
import { afterAll, beforeAll } from 'vitest';
import type { TillDatabase } from '../../server/db/database.js';
import { openTestDatabase, type TestDatabase } from './database.js';

/**
 * The file's database, for tests that call the services directly: a copy of the template opened
 * before the file's first test (beforeAll) and closed after its last. Read it inside tests and
 * hooks; before it is open, any use throws saying so.
 */
export function useTestDatabase(label = 'test'): TillDatabase {
  let copy: TestDatabase | undefined;
  beforeAll(async () => {
    copy = await openTestDatabase(label);
  });
  afterAll(async () => {
    await copy?.close();
    copy = undefined;
  });
  return new Proxy({} as TillDatabase, {
    get(_, key) {
      if (!copy) throw new Error(`useTestDatabase(): the database opens before the file's first test; read database.${String(key)} inside a test or a hook`);
      const value: unknown = Reflect.get(copy.database, key);
      return typeof value === 'function' ? value.bind(copy.database) : value;
    },
  });
}
