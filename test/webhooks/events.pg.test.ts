// The test-mode event stream (`GET /v1/events/stream`) across processes: a server on a database
// connection of its own hears what another wrote. Its own database pool and its own LISTEN
// connection; only PostgreSQL's NOTIFY links the two (events.test.ts has the rest of the stream).
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/database.js';
import { createLogger } from '../../server/log.js';
import { systemClock } from '../../server/shared/clock.js';
import { cancelledSession, useEventStreams } from '../support/events.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const stream = useEventStreams(t);

describe('GET /v1/events/stream', () => {
  it('hears an event written by a server on another database connection (PostgreSQL)', async () => {
    const database = await openDatabase({ databaseUrl: t.databaseUrl });
    const app = createApp({ database, clock: systemClock, config: loadConfig({ NODE_ENV: 'test' }), logger: createLogger('silent') });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const s = await stream({}, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
      const id = await cancelledSession(t);
      expect(JSON.parse((await s.next()).data).data.object.sessionId).toBe(id);
      s.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    }
  });
});
