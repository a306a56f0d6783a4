/**
 * The `pg-floor` target of `npm run bench`: bare node:http and node-postgres sending Till's own
 * statements for each operation, in the same round trips (scripts/bench-floor-server.mjs), on a
 * fresh database that Till migrated and seeded. node:http answers fixed bytes and says what the
 * machine's HTTP costs; this one says what the machine can do with the same database work, so a
 * goal above it cannot be met by any server that does that work.
 */
import path from 'node:path';
import { callJson, createBenchDatabase, idOf, onCleanup, root, sleep, spawnTill, spawnTracked, stopChild } from './bench-lib.js';

export interface FloorTarget {
  url: string;
  headers: Record<string, string>;
  planId: string;
  stop: () => Promise<void>;
}

/** Migrates a fresh database with Till (and makes a product and a plan), stops Till, starts the floor server on it. */
export async function startPgFloor(): Promise<FloorTarget> {
  const database = await createBenchDatabase();
  try {
    const { merchantId, planId } = await seedWithTill(database.url);
    const { child, output, exited } = spawnTracked(process.execPath, [path.join(root, 'scripts', 'bench-floor-server.mjs')], { ...process.env, DATABASE_URL: database.url, MERCHANT_ID: String(merchantId), PLAN_ID: planId });
    const stopServer = onCleanup(`stop the pg floor (pid ${child.pid})`, () => stopChild(child, exited, 5000));
    const stop = async () => {
      await stopServer();
      await database.drop();
    };
    const deadline = Date.now() + 10_000;
    let port: string | undefined;
    while (!(port = /PORT=(\d+)/.exec(output())?.[1])) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`the pg floor server did not start:\n${output()}`);
      }
      await sleep(50);
    }
    return { url: `http://127.0.0.1:${port}`, headers: {}, planId, stop };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

async function seedWithTill(databaseUrl: string): Promise<{ merchantId: number; planId: string }> {
  const till = await spawnTill(databaseUrl);
  try {
    const headers = { Authorization: `Bearer ${till.secretKey}` };
    const product = await callJson('POST', `${till.url}/v1/products`, headers, { name: 'Bench product' });
    const plan = await callJson('POST', `${till.url}/v1/plans`, headers, { productId: Number(idOf(product.json)), name: 'Bench monthly', amount: 19.99, currency: 'USD', interval: 'month' });
    return { merchantId: till.merchantId, planId: idOf(plan.json) };
  } finally {
    await till.stop();
  }
}
