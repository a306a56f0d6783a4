// Idempotency-Key under a race: PGlite runs one statement at a time, so a race can only show on a
// PostgreSQL server, with two app instances on one database.
import { describe, expect, it } from 'vitest';
import { call, useTestServer } from '../support/server.js';
import { countProducts } from './products-fixture.js';

const t = useTestServer();

describe('Idempotency-Key under concurrency (PostgreSQL)', () => {
  it('50 concurrent POSTs with one key, across two app instances, execute exactly once', async () => {
    const sibling = await t.startSibling();
    try {
      const key = `race-${Date.now()}`;
      const body = { name: `Raced ${key}` };
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          call(i % 2 === 0 ? t.url : sibling.url, 'POST', '/v1/products', { key: t.merchantA.keys.test.secret, body, headers: { 'Idempotency-Key': key } }),
        ),
      );
      const ok = results.filter((r) => r.status === 201);
      const busy = results.filter((r) => r.status === 409);
      expect(ok.length + busy.length).toBe(50);
      expect(busy.every((r) => r.json.error.code === 'idempotency_request_in_progress')).toBe(true);
      expect(new Set(ok.map((r) => r.text)).size).toBe(1);
      expect(await countProducts(t.database, t.merchantA.merchantId, body.name)).toBe(1);
    } finally {
      await sibling.close();
    }
  });
});
