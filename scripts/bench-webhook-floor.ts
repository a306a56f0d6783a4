// The webhook bench's floor (issue 37: delivery ≥ 70% of it): bare HTTPS POSTs of event envelopes
// from one process to the same receiver, signed and with the headers Till sends, as many at once as
// Till's attempt pipeline sends (64), for a few seconds, with the HTTP client Till sends with
// (undici). No database, no queue: what this machine can deliver to that receiver at all.
import path from 'node:path';
import { root, sleep, spawnTracked, stopChild } from './bench-lib.js';
import { fmt } from './bench-format.js';
import type { WebhookReceiver } from './bench-webhook-receiver.js';
import { type CaseContext, measureWebhookCase, WEBHOOK_GOALS } from './bench-webhook-case.js';
import type { WebhookRow } from './bench-webhook-case.js';
import type { WriteTally } from './bench-webhook-writes.js';

/** What Till's attempt pipeline sends at once (server/jobs/attempt-pipeline.ts, MAX_SENDING). */
const AT_ONCE = 64;
const SECONDS = 5;
/** The share of the floor Till's delivery is to reach. */
export const FLOOR_SHARE = 0.7;

export interface WebhookFloor {
  postsPerSec: number;
  p99Ms: number;
  atOnce: number;
}

/** The floor's program: POSTs for FLOOR_SECONDS, then prints `FLOOR <posts> <seconds> <p99 ms>`. */
const FLOOR_PROGRAM = `
  const { Agent, request } = require('undici');
  const crypto = require('node:crypto');
  const url = new URL(process.env.FLOOR_URL);
  const atOnce = Number(process.env.FLOOR_AT_ONCE);
  const agent = new Agent({ connections: atOnce, keepAliveTimeout: 30000, connect: { rejectUnauthorized: false } });
  const data = process.env.FLOOR_DATA;
  const secret = 'whsec_floor';
  const end = Date.now() + Number(process.env.FLOOR_SECONDS) * 1000;
  const latencies = [];
  let n = 0;
  const post = async (body, id) => {
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json', 'user-agent': 'Till-Webhooks/1.0',
      'x-webhook-signature': crypto.createHmac('sha256', secret).update(body).digest('hex'),
      'x-webhook-id': id, 'x-webhook-event': 'payment.succeeded', 'x-webhook-timestamp': String(ts),
      'webhook-id': id, 'webhook-timestamp': String(ts),
      'webhook-signature': 'v1,' + crypto.createHmac('sha256', secret).update(id + '.' + ts + '.' + body).digest('base64'),
    };
    try {
      const res = await request(url, { method: 'POST', dispatcher: agent, headers, body });
      await res.body.text();
    } catch {}
  };
  async function lane() {
    while (Date.now() < end) {
      const id = 'evt_floor_' + (n++);
      const body = '{"id":"' + id + '","object":"event","type":"payment.succeeded","created":"' + new Date().toISOString() + '","data":' + data + '}';
      const started = performance.now();
      await post(body, id);
      latencies.push(performance.now() - started);
    }
  }
  const started = performance.now();
  Promise.all(Array.from({ length: atOnce }, lane)).then(() => {
    latencies.sort((a, b) => a - b);
    console.log('FLOOR ' + latencies.length + ' ' + (performance.now() - started) / 1000 + ' ' + latencies[Math.floor(latencies.length * 0.99)]);
    return agent.destroy();
  });
`;

/** POSTs envelopes carrying `data` (an event's `data`, as the outbox case writes) to the receiver; answers the rate. */
export async function measureWebhookFloor(receiver: WebhookReceiver, data: unknown): Promise<WebhookFloor> {
  console.log(`bench: webhooks      floor (bare HTTPS POSTs, ${AT_ONCE} at once) ... ${SECONDS} s`);
  const env = { ...process.env, FLOOR_URL: receiver.url, FLOOR_AT_ONCE: String(AT_ONCE), FLOOR_SECONDS: String(SECONDS), FLOOR_DATA: JSON.stringify(data) };
  const { child, output, exited } = spawnTracked(process.execPath, ['-e', FLOOR_PROGRAM], env);
  try {
    await exited;
    const line = /FLOOR (\d+) ([\d.]+) ([\d.]+)/.exec(output());
    if (!line) throw new Error(`the webhook floor printed no result:\n${output()}`);
    const floor = { postsPerSec: Number(line[1]) / Number(line[2]), p99Ms: Number(line[3]), atOnce: AT_ONCE };
    console.log(`bench: webhooks      floor                → ${fmt(floor.postsPerSec, 0)} POSTs/s, p99 ${fmt(floor.p99Ms, 0)} ms`);
    return floor;
  } finally {
    await stopChild(child, exited);
  }
}

/**
 * The outbox case once more, delivered by the floor with Till's database work
 * (bench-webhook-db-floor.mjs) in Till's place: Till must be stopped, or it would deliver too.
 */
export async function measureWebhookDbFloor(
  context: CaseContext,
  databaseUrl: string,
  write: (deadline: number, tally: WriteTally) => Promise<void>,
): Promise<WebhookRow> {
  const env = { ...process.env, DATABASE_URL: databaseUrl };
  const { child, output, exited } = spawnTracked(process.execPath, [path.join(root, 'scripts', 'bench-webhook-db-floor.mjs')], env);
  try {
    const deadline = Date.now() + 10_000;
    while (!output().includes('READY')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the webhook database floor did not start:\n${output()}`);
      await sleep(50);
    }
    const row = await measureWebhookCase('outbox writes', { ...context, till: { ...context.till, pid: child.pid } }, write);
    return { ...row, target: 'webhook-db-floor' };
  } finally {
    await stopChild(child, exited);
  }
}

/** What the floor with Till's database work says: its rate, its share of the bare floor, Till's share of it. */
function dbFloorText(floor: WebhookFloor, till: WebhookRow, db: WebhookRow | undefined): string {
  if (!db?.deliveredPerSec) return '';
  const ofBare = db.deliveredPerSec / floor.postsPerSec;
  // Saturated (it fell behind the writes) short of the share: more writes only take more of the machine from it.
  const beyond = ofBare < FLOOR_SHARE && db.deliveredPerSec < 0.95 * (db.writtenPerSec ?? 0);
  return (
    ` With Till's database work (bench-webhook-db-floor.mjs, one bare process) the same writes were delivered at ${fmt(db.deliveredPerSec, 0)}/s = ${fmt(ofBare * 100, 1)}% of the bare floor` +
    `${beyond ? `: the ${FLOOR_SHARE * 100}% goal is beyond this machine` : ''}; Till delivered ${fmt(((till.deliveredPerSec ?? 0) / db.deliveredPerSec) * 100, 1)}% of that.`
  );
}

/** The goal line: the outbox case's delivered/s against the floor (judged only when it wrote enough to reach the share), and against the floor with the database work when it ran. */
export function floorLine(floor: WebhookFloor | undefined, rows: WebhookRow[]): string | undefined {
  if (!floor) return undefined;
  const outbox = rows.find((r) => r.case === 'outbox writes' && r.status === 'ok' && r.target !== 'webhook-db-floor');
  const db = rows.find((r) => r.target === 'webhook-db-floor' && r.status === 'ok');
  const head = `Webhook floor: ${fmt(floor.postsPerSec, 0)} POSTs/s (${floor.atOnce} at once, p99 ${fmt(floor.p99Ms, 0)} ms)`;
  if (!outbox?.deliveredPerSec) return `${head}; the outbox case was not measured.`;
  const share = outbox.deliveredPerSec / floor.postsPerSec;
  const judged = (outbox.writtenPerSec ?? 0) >= FLOOR_SHARE * floor.postsPerSec;
  const verdict = judged
    ? `${share >= FLOOR_SHARE ? '✓' : '✗'} (goal ≥ ${FLOOR_SHARE * 100}%, p99 ≤ ${WEBHOOK_GOALS.p99Ms / 1000} s)`
    : `n/a: the case wrote ${fmt(outbox.writtenPerSec ?? 0, 0)}/s, under ${FLOOR_SHARE * 100}% of the floor; raise BENCH_WEBHOOK_RATE to judge it`;
  return `${head}; the outbox case delivered ${fmt(outbox.deliveredPerSec, 0)}/s = ${fmt(share * 100, 1)}% of it ${verdict}.${dbFloorText(floor, outbox, db)}`;
}
