/**
 * The targets of `npm run bench` (scripts/bench.ts): Till from the compiled build (on PGlite, or on
 * a fresh PostgreSQL database), the bare node:http server, the pg floor and the Prism mock. Each
 * runs in a child process of its own and is stopped (and its database dropped) by `stop`.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { callJson, createBenchDatabase, idOf, onCleanup, root, sleep, spawnTracked, stopChild } from './bench-lib.js';
import { spawnTill } from './bench-till.js';
import { SESSION_BODY } from './bench-payments.js';
import { startPrism } from './mock.mjs';

/** What a target needs to be benchmarked: where it listens and how to call it. */
export interface RunningTarget {
  url: string;
  /** Authorization etc. */
  headers: Record<string, string>;
  planId: string;
  stop: () => Promise<void>;
}

/** Makes every email and Idempotency-Key of this run unique, across warm-ups, operations and targets. */
export const runTag = Date.now().toString(36);

/** Bodies the bare node:http server answers; replaced by Till's real answers once Till ran. */
export const referenceBodies = {
  plan: JSON.stringify({
    success: true,
    errorCode: null,
    errorMessage: null,
    data: {
      id: 1,
      object: 'plan',
      productId: 1,
      name: 'Bench monthly',
      description: null,
      amount: 19.99,
      currency: 'USD',
      interval: 'month',
      intervalCount: 1,
      status: 'available',
      active: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  }),
  customer: JSON.stringify({
    success: true,
    errorCode: null,
    errorMessage: null,
    data: {
      id: 1,
      object: 'customer',
      email: 'bench@example.com',
      name: 'Bench',
      phone: null,
      externalId: null,
      metadata: {},
      hasPaymentMethod: false,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  }),
  session: JSON.stringify({
    id: 'cs_test_3ZcTvQgwGnPdbuI6Uh45vm3m',
    object: 'checkout_session',
    status: 'open',
    amount: 25,
    currency: 'USD',
    mode: 'embedded',
    paymentType: 'oneTime',
    clientSecret: 'cs_test_3ZcTvQgwGnPdbuI6Uh45vm3m_secret_AxP8wiPQSWvUR1ivoxGQeowj',
    url: null,
    successUrl: null,
    cancelUrl: null,
    customer: { email: null, name: null },
    paymentStatus: 'unpaid',
    expiresAt: '2026-01-01T00:30:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
  }),
};

/**
 * Starts Till (`NODE_ENV=production`; `env` e.g. TILL_WORKERS) for the req/s rows: creates a
 * product and a plan with the demo merchant's test secret key, and checks every operation once.
 */
export async function startTill(databaseUrl: string | undefined, cwd = root, env: NodeJS.ProcessEnv = {}): Promise<RunningTarget> {
  const till = await spawnTill(databaseUrl, env, cwd);
  try {
    const { url } = till;
    const headers = { Authorization: `Bearer ${till.secretKey}` };
    const planId = await createBenchPlan(url, headers);
    // One of each, so a broken setup fails here with a readable answer, not as 100% errors.
    referenceBodies.plan = (await callJson('GET', `${url}/v1/plans/${planId}`, headers)).text;
    const created = await callJson('POST', `${url}/v1/customers`, headers, { email: `bench-${runTag}-check-${new URL(url).port}@example.com`, name: 'Bench' });
    if (created.status !== 201) throw new Error(`POST /v1/customers with a new email answered ${created.status}, expected 201`);
    referenceBodies.customer = created.text;
    const session = await callJson(
      'POST',
      `${url}/v1/checkout-sessions`,
      { ...headers, 'Idempotency-Key': `bench-${runTag}-check-${randomUUID()}` },
      SESSION_BODY,
    );
    if (session.status !== 201) throw new Error(`POST /v1/checkout-sessions with a new Idempotency-Key answered ${session.status}, expected 201`);
    referenceBodies.session = session.text;
    return { url, headers, planId, stop: till.stop };
  } catch (error) {
    await till.stop();
    throw error;
  }
}

/**
 * The bare node:http server, in a child process: Till's plan JSON for GET, a 201 checkout session
 * JSON for POST /v1/checkout-sessions and a 201 customer JSON for any other POST.
 */
export async function startNodeHttp(): Promise<RunningTarget> {
  const code = `
    const http = require('node:http');
    const get = Buffer.from(process.env.BENCH_GET_BODY);
    const post = Buffer.from(process.env.BENCH_POST_BODY);
    const session = Buffer.from(process.env.BENCH_SESSION_BODY);
    const json = (res, status, body) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      res.end(body);
    };
    const server = http.createServer((req, res) => {
      if (req.method !== 'POST') return json(res, 200, get);
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        try { JSON.parse(Buffer.concat(chunks).toString()); } catch { return json(res, 400, Buffer.from('{"error":"bad json"}')); }
        json(res, 201, req.url.startsWith('/v1/checkout-sessions') ? session : post);
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('PORT=' + server.address().port));
    process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
  `;
  const { child, output, exited } = spawnTracked(process.execPath, ['-e', code], {
    ...process.env,
    BENCH_GET_BODY: referenceBodies.plan,
    BENCH_POST_BODY: referenceBodies.customer,
    BENCH_SESSION_BODY: referenceBodies.session,
  });
  const stop = onCleanup(`stop node:http (pid ${child.pid})`, () => stopChild(child, exited, 5000));
  try {
    return { url: await listeningUrl(child, output, 'node:http server'), headers: {}, planId: '1', stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Prism mocking the Checkout & Billing interface, with request validation (`--errors`). */
export async function startPrismTarget(): Promise<RunningTarget> {
  const prism = await startPrism({ api: 'checkout' });
  const stop = onCleanup(`stop Prism (${prism.url})`, () => prism.stop());
  return { url: prism.url, headers: { Authorization: 'Bearer sk_test_bench' }, planId: String(PRISM_PLAN_ID), stop };
}

/**
 * The PGlite floor: bare node:http and PGlite sending Till's own statements for each operation,
 * prepared and taken in turn as Till takes its one connection (scripts/bench-pglite-floor-server.mjs),
 * on a data directory Till made and seeded (then stopped): what this machine can do with the same
 * embedded database work, the reference for PGlite's req/s goals.
 */
export async function startPgliteFloor(): Promise<RunningTarget> {
  const till = await spawnTill(undefined);
  try {
    const planId = await createBenchPlan(till.url, { Authorization: `Bearer ${till.secretKey}` });
    await till.stopProcess();
    const floor = await startFloorServer('bench-pglite-floor-server.mjs', 'the PGlite floor', {
      TILL_DATA_DIR: till.dataDir,
      MERCHANT_ID: String(till.merchantId),
    });
    return { url: floor.url, headers: {}, planId, stop: async () => (await floor.stop(), await till.stop()) };
  } catch (error) {
    await till.stop();
    throw error;
  }
}

/** Till on a fresh PostgreSQL database of its own, dropped when it stops. */
export async function startTillOnPostgres(cwd: string, env: NodeJS.ProcessEnv = {}): Promise<RunningTarget> {
  const database = await createBenchDatabase();
  try {
    const till = await startTill(database.url, cwd, env);
    return { ...till, stop: async () => (await till.stop(), await database.drop()) };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** Prism answers any plan id with the contract's example; this is the example's id. */
const PRISM_PLAN_ID = 301;

/** Creates a product and a monthly plan with the merchant's `headers`; answers the plan's id. */
async function createBenchPlan(url: string, headers: Record<string, string>): Promise<string> {
  const product = await callJson('POST', `${url}/v1/products`, headers, { name: 'Bench product' });
  const plan = await callJson('POST', `${url}/v1/plans`, headers, {
    productId: Number(idOf(product.json)),
    name: 'Bench monthly',
    amount: 19.99,
    currency: 'USD',
    interval: 'month',
  });
  return idOf(plan.json);
}

/** A floor server (`scripts/<script>`) in a child process, with `env` over this one's; stopped by its `stop`. */
async function startFloorServer(script: string, what: string, env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => Promise<void> }> {
  const { child, output, exited } = spawnTracked(process.execPath, [path.join(root, 'scripts', script)], { ...process.env, ...env });
  const stop = onCleanup(`stop ${what} (pid ${child.pid})`, () => stopChild(child, exited, 5000));
  const url = await listeningUrl(child, output, `${what} server`).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, stop };
}

/** The URL a child server listens on, once it printed `PORT=<port>` (within 10 s). */
async function listeningUrl(child: ChildProcess, output: () => string, what: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  let port: string | undefined;
  while (!(port = /PORT=(\d+)/.exec(output())?.[1])) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${what} did not start:\n${output()}`);
    await sleep(50);
  }
  return `http://127.0.0.1:${port}`;
}

/**
 * The pg floor: bare node:http and node-postgres sending Till's own statements for each operation,
 * in the same round trips (scripts/bench-floor-server.mjs), on a fresh database that Till migrated
 * and seeded (then stopped). node:http says what the machine's HTTP costs; this says what the
 * machine can do with the same database work, so a goal above it cannot be met by any server that
 * does that work.
 */
export async function startPgFloor(env: NodeJS.ProcessEnv = {}): Promise<RunningTarget> {
  const database = await createBenchDatabase();
  try {
    const till = await spawnTill(database.url);
    const planId = await createBenchPlan(till.url, { Authorization: `Bearer ${till.secretKey}` }).finally(() => till.stop());
    const floor = await startFloorServer('bench-floor-server.mjs', 'the pg floor', {
      DATABASE_URL: database.url,
      MERCHANT_ID: String(till.merchantId),
      PLAN_ID: planId,
      ...env,
    });
    return { url: floor.url, headers: {}, planId, stop: async () => (await floor.stop(), await database.drop()) };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
