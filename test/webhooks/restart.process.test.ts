// Issue #5: "A process restart in the middle of a delivery backlog loses no event." A backlog of
// events is written by a server without jobs (so none is delivered yet, however slow the machine);
// then Till runs as a real child process (`server/main.ts`, pg-boss and all) delivering it to a
// slow HTTPS receiver on loopback, is stopped as soon as the first delivery arrives (SIGTERM, and on
// PostgreSQL also SIGKILL, which PGlite's single-process data directory is not meant to survive)
// and started again on the same database. Every event must reach the receiver; a repeat is allowed
// (receivers de-duplicate on id).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.js';
import { startServer } from '../../server/main.js';
import { call, emptyPostgres, usingPostgres } from '../support/server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

const root = path.resolve(import.meta.dirname, '../..');
const TIMEOUT_MS = 5000;
/** The receiver answers each request this late (well within the timeout): the first answers come long after the stop. */
const ANSWER_MS = 3000;
/** The hold a killed process leaves on the deliveries it was attempting: the timeout plus 15 s. */
const HOLD_MS = TIMEOUT_MS + 15_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what: string, check: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Till {
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** Starts `server/main.ts` in its own process on the test's database; resolves once it listens. */
async function startTill(env: NodeJS.ProcessEnv): Promise<Till> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(`Till to listen (output so far: ${output.slice(-500)})`, () => output.includes('Till is listening') || child.exitCode !== null, 60_000);
  if (child.exitCode !== null) throw new Error(`Till exited at start: ${output.slice(-2000)}`);
  return { url: `http://127.0.0.1:${port}`, child, exited };
}

describe('a process restart in the middle of a delivery backlog', () => {
  let env: NodeJS.ProcessEnv;
  let dataDir: string | undefined;
  let database: Awaited<ReturnType<typeof emptyPostgres>>;
  let receiver: Receiver;
  const running = new Set<Till>();

  beforeAll(async () => {
    // The backlog is written as fast as the machine goes (300 requests): the rate limit (200 in a
    // burst) is not what this test is about, so it is raised for these servers.
    env = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true',
      TILL_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      TILL_RATE_LIMIT_SCALE: '100',
    };
    // Its own database: these servers deliver every merchant's events, not only this test's.
    database = await emptyPostgres('restart');
    if (database) {
      env.DATABASE_URL = database.url;
    } else {
      dataDir = mkdtempSync(path.join(tmpdir(), 'till-restart-'));
      env.TILL_DATA_DIR = dataDir;
      delete env.DATABASE_URL;
    }
    // A slow but healthy receiver: each answer takes ANSWER_MS.
    receiver = await startReceiver((_n, _req, res) => {
      setTimeout(() => {
        res.statusCode = 200;
        res.end('{"ok":true}');
      }, ANSWER_MS);
      return 'hang';
    });
  });
  afterAll(async () => {
    for (const till of running) {
      till.child.kill('SIGKILL');
      await till.exited;
    }
    await receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  async function start() {
    const till = await startTill(env);
    running.add(till);
    return till;
  }
  async function stop(till: Till, signal: NodeJS.Signals) {
    till.child.kill(signal);
    await till.exited;
    running.delete(till);
  }

  /**
   * A new merchant's endpoint and a backlog of `count` events, written by a server in this process
   * that runs no jobs (nothing is delivered yet), closed before Till starts on the same database.
   */
  async function backlog(secretKey: string, count: number): Promise<Set<string>> {
    const writer = await startServer({ env: { ...env, PORT: '0' }, announce: false, jobs: false, logger: createLogger('silent') });
    const sessions = new Set<string>();
    try {
      const configured = await call(writer.url, 'POST', '/v1/WebhookConfiguration', {
        key: secretKey,
        body: { sandboxUrl: receiver.url, subscribedEvents: ['checkout.session.cancelled'] },
      });
      expect(configured.status).toBe(201);
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (sessions.size < count) {
            const s = await call(writer.url, 'POST', '/v1/checkout-sessions', {
              key: secretKey,
              body: { amount: 10, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' },
            });
            expect(s.status).toBe(201);
            sessions.add(s.json.id);
            expect((await call(writer.url, 'POST', `/v1/checkout-sessions/${s.json.id}/cancel`, { key: secretKey })).status).toBe(204);
          }
        }),
      );
    } finally {
      await writer.close();
    }
    return sessions;
  }
  /** Starts Till on the backlog and answers once its first deliveries have arrived (none answered yet: ANSWER_MS). */
  async function startDelivering(sessions: Set<string>): Promise<Till> {
    const till = await start();
    await until('the first deliveries', () => receivedFor(sessions).size > 0, 60_000);
    return till;
  }
  const receivedFor = (sessions: Set<string>) => new Set(receiver.received.map((h) => h.json?.data?.object?.id).filter((id: string) => sessions.has(id)));

  async function newMerchant(name: string): Promise<string> {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/merchant.ts', 'create', '--name', name, '--json'], {
      cwd: root,
      env,
    });
    return JSON.parse(stdout).keys.test.secret as string;
  }

  it('stopped (SIGTERM) mid-backlog and started again: every event is delivered', async () => {
    const key = await newMerchant(`Restart ${Date.now()}`);
    const sessions = await backlog(key, 150);
    const first = await startDelivering(sessions);
    await stop(first, 'SIGTERM');
    const before = receivedFor(sessions).size;
    expect(before, 'the backlog was not done when the process stopped').toBeLessThan(sessions.size);

    const second = await start();
    await until(`all ${sessions.size} events (${receivedFor(sessions).size} so far)`, () => receivedFor(sessions).size === sessions.size, 60_000);
    expect(receivedFor(sessions)).toEqual(sessions);
    await stop(second, 'SIGTERM');
  }, 150_000);

  it.skipIf(!usingPostgres)(
    'killed (SIGKILL) mid-backlog and started again: every event is delivered, the ones it was sending once their hold passes',
    async () => {
      const key = await newMerchant(`Kill ${Date.now()}`);
      const sessions = await backlog(key, 150);
      const first = await startDelivering(sessions);
      await stop(first, 'SIGKILL');
      expect(receivedFor(sessions).size).toBeLessThan(sessions.size);

      await sleep(HOLD_MS);
      const second = await start();
      await until(`all ${sessions.size} events (${receivedFor(sessions).size} so far)`, () => receivedFor(sessions).size === sessions.size, 60_000);
      expect(receivedFor(sessions)).toEqual(sessions);
      await stop(second, 'SIGTERM');
    },
    150_000,
  );
});
