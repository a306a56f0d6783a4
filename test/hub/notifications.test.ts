// LISTEN/NOTIFY under the notification hub (`TillDatabase.listen`): a notification arrives once its
// transaction commits and never for one that rolls back, on PGlite and on PostgreSQL. A listener
// whose connection is lost (PostgreSQL): notifications.pg.test.ts.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listener as listenerOn } from '../support/hub.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
/** A listener on a channel of its own (test files share the PostgreSQL database). */
const listener = () => listenerOn(t.database);

describe('TillDatabase.listen', () => {
  it('hears a NOTIFY sent inside a transaction once it commits, and never one that rolled back', async () => {
    const { channel, heard, hears, unlisten } = await listener();
    const rolledBack = t.database.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_notify(${channel}, 'rolled back')`.execute(trx);
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    let heardBeforeCommit: string[] | undefined;
    await t.database.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_notify(${channel}, 'committed')`.execute(trx);
      heardBeforeCommit = [...heard];
    });
    await hears('committed');
    expect(heardBeforeCommit).toEqual([]);
    // Notifications arrive in commit order: the rolled-back one would have come first.
    expect(heard).toEqual(['committed']);
    await unlisten();
  });

  it('stops hearing after unlisten', async () => {
    const first = await listener();
    const second = await listener();
    await first.unlisten();
    await first.notify('gone');
    await sql`SELECT pg_notify(${second.channel}, 'marker')`.execute(t.database.db);
    await second.hears('marker');
    expect(first.heard).toEqual([]);
    await second.unlisten();
  });
});
