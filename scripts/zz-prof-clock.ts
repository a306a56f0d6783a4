// scratch (not committed): CPU profile of one 1-day advance of the bench's sandbox on PostgreSQL.
import { writeFile } from 'node:fs/promises';
import WebSocket from 'ws';
import { createBenchDatabase } from './bench-lib.js';
import { apiOf, seedSandbox } from './bench-clock-seed.js';
import { spawnTill } from './bench-till.js';
import { startWebhookReceiver } from './bench-webhook-receiver.js';

async function cdp(port: number) {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(list[0]!.webSocketDebuggerUrl);
  await new Promise((r) => ws.once('open', r));
  let id = 0;
  const pending = new Map<number, (v: any) => void>();
  ws.on('message', (m) => {
    const msg = JSON.parse(String(m));
    if (msg.id && pending.has(msg.id)) pending.get(msg.id)!(msg.result);
  });
  return { send: (method: string, params: object = {}) => new Promise<any>((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params })); }), close: () => ws.close() };
}

const pgOnly = process.env.PROF_PGLITE !== '1';
const bench = pgOnly ? await createBenchDatabase() : undefined;
const receiver = await startWebhookReceiver();
const till = await spawnTill(bench?.url, { NODE_ENV: 'development', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true', LOG_LEVEL: 'error' });
await seedSandbox(till, receiver.url);
let last = -1;
for (;;) { const seen = receiver.receipts.size + receiver.failed; if (seen === last) break; last = seen; await new Promise((r) => setTimeout(r, 2000)); }
const c = await cdp(9333);
await c.send('Profiler.enable');
await c.send('Profiler.setSamplingInterval', { interval: 200 });
await c.send('Profiler.start');
const t0 = performance.now();
const res = await fetch(`${till.url}/v1/test-helpers/clock/advance`, { method: 'POST', headers: { Authorization: `Bearer ${till.secretKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds: 86400 }) });
console.log(res.status, await res.text(), (performance.now() - t0) / 1000);
const { profile } = await c.send('Profiler.stop');
await writeFile('/tmp/prof/day.cpuprofile', JSON.stringify(profile));
c.close();
await till.stop();
await receiver.stop();
await bench?.drop();
process.exit(0);
