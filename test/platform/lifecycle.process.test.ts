// Starting Till: the sandbox from the first start, the merchant command, migrations, jobs. Tests
// of what a first start does start on an empty data directory; the others on a copy of the
// migrated template, which skips initdb and the migrations.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateDown, migrateToLatest } from '../../server/db/migrate.js';
import { migrations } from '../../server/db/migrations/index.js';
import { startServer } from '../../server/main.js';
import { createLogger } from '../../server/log.js';
import { openTestDatabase } from '../support/database.js';
import { connectHub } from '../support/hub.js';
import { embeddedEnv, freePort, useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';

const { tempDir, seededDataDir, merchant } = useProcesses();

// These start the server on the embedded database (their environment has no DATABASE_URL); the PostgreSQL run covers the same code
// through the other suites. A copy of the migrated template holds no merchant: a start on it is a first start as well (it creates
// the demo merchant), only without initdb and the migrations.
describe('first start on an empty embedded database', () => {
  it('creates "Demo Merchant", writes its four keys to demo-merchant.json, and serves both interfaces with them', async () => {
    const dataDir = await tempDir();
    const env = { TILL_DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' };
    const first = await startServer({ env, announce: false, jobs: true, logger: createLogger('silent') });
    try {
      const file = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
      expect(file).toEqual(first.demo);
      expect(file.merchantId).toBeTypeOf('number');
      expect(file.keys.test.secret).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
      expect(file.keys.test.publishable).toMatch(/^pk_test_/);
      expect(file.keys.live.secret).toMatch(/^sk_live_/);
      expect(file.keys.live.publishable).toMatch(/^pk_live_/);
      expect((await stat(path.join(dataDir, 'demo-merchant.json'))).mode & 0o077).toBe(0);

      const plans = await call(first.url, 'GET', '/v1/plans', { key: file.keys.test.secret });
      expect(plans.status).toBe(200);
      expect(plans.headers.get('x-ratelimit-limit')).toBe('100');
      const commerce = await call(first.url, 'GET', '/v1/SubscriptionPlan', { apiKey: file.keys.test.secret });
      expect(commerce.status).toBe(200);

      // Keys are stored only as hashes.
      const stored = await first.database.db.selectFrom('api_keys').selectAll().execute();
      expect(stored).toHaveLength(4);
      for (const row of stored) {
        expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(Object.values(row).join(' ')).not.toContain(file.keys.test.secret);
      }
      const merchant = await first.database.db.selectFrom('merchants').selectAll().executeTakeFirstOrThrow();
      expect(merchant).toMatchObject({ name: 'Demo Merchant', message_checkout_customers: false, send_checkout_receipts: true, rate_plan: 'standard' });
      expect(merchant.payment_options.filter((o) => o.canHold).map((o) => o.name)).toEqual(['Visa', 'Mastercard']);

      // The job queue runs on the embedded database.
      await first.jobs!.boss.send('idempotency-cleanup', {});
      await expect
        .poll(
          async () =>
            (await first.database.sql.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'idempotency-cleanup' AND state = 'completed'")).rows[0].n,
          {
            timeout: 20_000,
            interval: 250,
          },
        )
        .toBeGreaterThan(0);
    } finally {
      await first.close();
    }

    // A second start on the same data keeps the merchant and does not make another.
    const second = await startServer({ env, announce: false, jobs: false, logger: createLogger('silent') });
    try {
      expect(second.demo).toBeUndefined();
      expect(
        (await call(second.url, 'GET', '/v1/plans', { key: JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8')).keys.test.secret }))
          .status,
      ).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('npm run merchant -- create prints the same JSON, and the keys work', async () => {
    const dataDir = await seededDataDir();
    const { code, stdout, stderr } = await merchant(['create', '--name', 'Acme', '--plan', 'enterprise', '--json'], embeddedEnv(dataDir));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const created = JSON.parse(stdout);
    expect(Object.keys(created)).toEqual(['merchantId', 'keys']);
    expect(created.keys.live.secret).toMatch(/^sk_live_/);
    const server = await startServer({
      env: { TILL_DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'test' },
      announce: false,
      jobs: false,
      logger: createLogger('silent'),
    });
    try {
      const res = await call(server.url, 'GET', '/v1/products', { key: created.keys.test.secret });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('500');
    } finally {
      await server.close();
    }
    // A child process that loads TypeScript, then a server in this one: slow on a busy machine.
  }, 90_000);

  it('serves the notification hub, and a shutdown tells connected clients to reconnect without waiting for them', async () => {
    const env = { TILL_DATA_DIR: await seededDataDir(), PORT: '0', NODE_ENV: 'test' };
    const server = await startServer({ env, announce: false, jobs: false, logger: createLogger('silent') });
    let closed: Promise<Error | undefined> | undefined;
    try {
      const key = server.demo!.keys.test.secret;
      const client = await connectHub(server.url, { key });
      closed = new Promise((resolve) => client.connection.onclose(resolve));
      const invoice = await call(server.url, 'POST', '/v1/invoices', {
        key,
        body: { customer: { email: 'hub@example.com' }, currency: 'USD', lineItems: [{ name: 'Hub', quantity: 1, unitAmount: 5 }] },
      });
      await call(server.url, 'POST', `/v1/invoices/${invoice.json.id}/void`, { key });
      expect(await client.next(invoice.json.id)).toEqual({ invoiceId: invoice.json.id, status: 'Cancelled' });
    } finally {
      await server.close();
    }
    expect((await closed)?.message).toContain('shutting down');
  });

  it('the merchant command explains a bad call', async () => {
    const result = await merchant(['create', '--plan', 'gold']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--name is required');
  });

  it('npm run merchant -- keys list|revoke and roles delete manage the restricted keys made through the API, and the audit log names the operator', async () => {
    const dataDir = await seededDataDir();
    const env = { TILL_DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'test' };
    const options = { env, announce: false, jobs: false, logger: createLogger('silent') } as const;
    const first = await startServer(options);
    const demo = first.demo!;
    let made: { roleId: number; key: { id: number; key: string; keyPrefix: string } };
    try {
      const role = await call(first.url, 'POST', '/v1/role', { apiKey: demo.keys.test.secret, body: { name: 'Exporter', scopes: ['account.read'] } });
      const key = await call(first.url, 'POST', `/v1/role/${role.json.id}/keys`, { apiKey: demo.keys.test.secret, body: { description: 'Nightly export' } });
      expect(key.status, key.text).toBe(201);
      made = { roleId: role.json.id, key: key.json };
    } finally {
      await first.close();
    }
    const id = String(demo.merchantId);
    const listed = await merchant(['keys', 'list', '--merchant', id, '--json'], embeddedEnv(dataDir));
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: made.key.id, keyPrefix: made.key.keyPrefix, livemode: false, roleName: 'Exporter', revokedAt: null }),
    ]);
    expect(listed.stdout).not.toContain(made.key.key);
    const revoked = await merchant(['keys', 'revoke', '--merchant', id, '--key', String(made.key.id)], embeddedEnv(dataDir));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked restricted key ${made.key.id}`);
    const deleted = await merchant(['roles', 'delete', '--merchant', id, '--role', String(made.roleId)], embeddedEnv(dataDir));
    expect(deleted.code, deleted.stderr).toBe(0);
    const second = await startServer(options);
    try {
      expect((await call(second.url, 'GET', '/v1/account', { apiKey: made.key.key })).status).toBe(401);
      expect((await call(second.url, 'GET', `/v1/role/${made.roleId}`, { apiKey: demo.keys.test.secret })).status).toBe(404);
      // Both changes are in the audit log, made by the operator; the role's deletion in each mode.
      const operator = { type: 'operator', keyPrefix: null, session: null };
      const audit = async (key: string) =>
        (await call(second.url, 'GET', '/v1/audit-entries?actorType=operator', { key })).json.data.map((e: any) => [e.action, e.target.id, e.actor]);
      expect(await audit(demo.keys.test.secret)).toEqual([
        ['role.deleted', String(made.roleId), operator],
        ['restricted_key.revoked', String(made.key.id), operator],
      ]);
      expect(await audit(demo.keys.live.secret)).toEqual([['role.deleted', String(made.roleId), operator]]);
    } finally {
      await second.close();
    }
    // Three child processes that load TypeScript, and two servers in this one: slow on a busy machine.
  }, 180_000);

  it('the merchant command explains a bad roles or keys call, and --help lists every command', async () => {
    const bad = await merchant(['keys', 'revoke', '--merchant', '7']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--key is required');
    expect(bad.stderr).toContain('keys revoke --merchant ID --key ID');
    const help = await merchant(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['create --name', 'roles list', 'roles delete', 'keys list', 'keys revoke']) expect(help.stdout).toContain(command);
  });
});

describe('the job queue at start', () => {
  it('gives way to requests: one sent while the queue starts is answered before the start is done', async () => {
    const dataDir = await seededDataDir();
    const port = await freePort();
    const env = { TILL_DATA_DIR: dataDir, PORT: String(port), NODE_ENV: 'test' };
    let started = false;
    const starting = startServer({ env, announce: false, jobs: true, logger: createLogger('silent') }).then((server) => {
      started = true;
      return server;
    });
    try {
      // The demo merchant's keys are written before the server listens; the job queue starts after.
      let answered: { status: number; whileStarting: boolean } | undefined;
      while (!answered && !started) {
        const key = await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8').then(
          (text) => JSON.parse(text).keys.test.secret as string,
          () => undefined, // not written yet
        );
        const res = key ? await fetch(`http://127.0.0.1:${port}/v1/plans`, { headers: { authorization: `Bearer ${key}` } }).catch(() => undefined) : undefined;
        if (res) answered = { status: res.status, whileStarting: !started };
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // On PGlite each statement completes without giving way to I/O: before the queue's statements waited a turn each, no request
      // was read until its fifty-odd statements were done.
      expect(answered).toEqual({ status: 200, whileStarting: true });
    } finally {
      await (await starting).close();
    }
  });
});

describe('migrations', () => {
  it('are listed in an explicit registry, each with up and down', () => {
    for (const [name, migration] of Object.entries(migrations)) {
      expect(name).toMatch(/^\d{4}_\d{2}_\d{2}_\d{4}_[a-z_]+$/);
      expect(migration.down).toBeTypeOf('function');
    }
  });

  it('run up, down and up again cleanly', async () => {
    // A copy of the run's template: a fresh database with every migration run up already.
    const { database, close } = await openTestDatabase('migrations', 1);
    try {
      await migrateToLatest(database.db);
      const tables = async () =>
        (
          await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'merchants'`.execute(
            database.db,
          )
        ).rows[0]!.n;
      expect(await tables()).toBe(1);
      for (let i = 0; i < Object.keys(migrations).length; i++) await migrateDown(database.db);
      expect(await tables()).toBe(0);
      await migrateToLatest(database.db);
      expect(await tables()).toBe(1);
    } finally {
      await close();
    }
  });
});
