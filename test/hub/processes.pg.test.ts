// The notification hub across real processes on one PostgreSQL database: a second Till started
// as `npm start` does (its own process, its own LISTEN connection). A change made through either
// reaches clients connected to the other. PostgreSQL only: PGlite admits one process.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHub, stopHubClients } from '../support/hub.js';
import { useTestServer } from '../support/server.js';

// A database of its own: the second process runs the background jobs.
const t = useTestServer();
let child: ChildProcess | undefined;
let childUrl: string;
let dataDir: string;

/** Starts `server/main.ts` in a process of its own on the database; answers once it listens. */
async function startProcess(databaseUrl: string): Promise<string> {
  dataDir = await mkdtemp(path.join(tmpdir(), 'till-second-process-'));
  child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', TILL_DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the second process did not start: ${out}`)), 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child!.stdout!.on('data', read);
    child!.stderr!.on('data', read);
    child!.once('exit', (code) => reject(new Error(`the second process exited (${code}): ${out}`)));
  });
}

describe('two Till processes on one PostgreSQL database', () => {
  beforeAll(async () => {
    childUrl = await startProcess(t.databaseUrl!);
  }, 90_000);

  afterAll(async () => {
    await stopHubClients();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const key = () => t.merchantA.keys.test.secret;

  async function invoice(baseUrl: string): Promise<{ id: number; identifier: string }> {
    const res = await fetch(`${baseUrl}/v1/invoices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer: { email: 'two@example.com' }, currency: 'USD', lineItems: [{ name: 'Two', quantity: 1, unitAmount: 20 }] }),
    });
    expect(res.status).toBe(201);
    return res.json();
  }

  const voidAt = async (baseUrl: string, id: number) =>
    expect((await fetch(`${baseUrl}/v1/invoices/${id}/void`, { method: 'POST', headers: { authorization: `Bearer ${key()}` } })).status).toBe(200);

  it('a change made in one process reaches merchant and public clients connected to the other, both ways', async () => {
    const onChild = await connectHub(childUrl, { key: key() });
    const onTest = await connectHub(t.url, { key: key() });
    const first = await invoice(t.url);
    const visitor = await connectHub(childUrl);
    await visitor.connection.invoke('SubscribeToInvoice', first.identifier);
    await voidAt(t.url, first.id);
    expect(await onChild.next(first.id)).toEqual({ invoiceId: first.id, status: 'Cancelled' });
    expect(await visitor.next(first.id)).toEqual({ invoiceId: first.id, status: 'Cancelled' });
    const second = await invoice(childUrl);
    await voidAt(childUrl, second.id);
    expect(await onTest.next(second.id)).toEqual({ invoiceId: second.id, status: 'Cancelled' });
  });
});
