// The webhook bench's receiver: an HTTPS server on 127.0.0.1 in its own process, reporting every receipt.
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { message, onCleanup, sleep, spawnTracked, stopChild } from './bench-lib.js';

/** The webhook receiver, as the bench sees it. */
export interface WebhookReceiver {
  url: string;
  pid: number | undefined;
  /** By event id: how many times it arrived, its `created` and its first arrival (epoch ms). */
  receipts: Map<string, { count: number; created: number; firstAt: number }>;
  /** Requests whose body was not an event envelope (answered 400). */
  badRequests: number;
  /** Requests to a URL ending in `/fail`, answered 500 (an endpoint that fails). */
  failed: number;
  stop: () => Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 made by openssl in `dir` (as the tests' receivers are). */
async function makeCertificate(dir: string): Promise<{ key: string; cert: string }> {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1']);
  return { key, cert };
}

/**
 * The receiver's own program: it answers 200 to every event envelope (500 on a path ending in
 * `/fail`, reported as `F`) and reports
 * `R <eventId> <createdMs> <receivedMs>` per request on stdout, in batches every 50 ms, so that
 * reporting costs little and never delays the answer; the receipt time is taken when the body has arrived.
 */
const RECEIVER_PROGRAM = `
    const https = require('node:https');
    const fs = require('node:fs');
    let lines = [];
    setInterval(() => {
      if (lines.length === 0) return;
      process.stdout.write(lines.join('\\n') + '\\n');
      lines = [];
    }, 50);
    const server = https.createServer({ key: fs.readFileSync(process.env.BENCH_TLS_KEY), cert: fs.readFileSync(process.env.BENCH_TLS_CERT), keepAliveTimeout: 30000 }, (req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        let event;
        try { event = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch {}
        if (!event || typeof event.id !== 'string' || typeof event.created !== 'string') {
          lines.push('B');
          res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': 2 });
          return res.end('{}');
        }
        if (req.url.endsWith('/fail')) {
          lines.push('F');
          res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': 2 });
          return res.end('{}');
        }
        lines.push('R ' + event.id + ' ' + Date.parse(event.created) + ' ' + at);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 17 });
        res.end('{"received":true}');
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('PORT=' + server.address().port));
    process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
  `;

/** Counts the receipts the receiver reports on its stdout into `receiver`. */
function countReceipts(child: ChildProcess, receiver: WebhookReceiver): void {
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString();
    const lines = text.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'B') receiver.badRequests += 1;
      if (line === 'F') receiver.failed += 1;
      if (!line.startsWith('R ')) continue;
      const [, id, created, at] = line.split(' ');
      const seen = receiver.receipts.get(id!);
      if (seen) seen.count += 1;
      else receiver.receipts.set(id!, { count: 1, created: Number(created), firstAt: Number(at) });
    }
  });
}

/** The port the receiver says it listens on, within 10 s. */
async function listeningPort(child: ChildProcess, output: () => string): Promise<string> {
  const deadline = Date.now() + 10_000;
  let port: string | undefined;
  while (!(port = /PORT=(\d+)/.exec(output())?.[1])) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the webhook receiver did not start:\n${output()}`);
    await sleep(50);
  }
  return port;
}

/** Starts the receiver (RECEIVER_PROGRAM) with a self-signed certificate; stopped at the end like everything the bench starts. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'till-bench-tls-'));
  const removeDir = onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  let tls: { key: string; cert: string };
  try {
    tls = await makeCertificate(dir);
  } catch (error) {
    await removeDir();
    throw new Error(`openssl could not make the receiver's certificate: ${message(error)}`, { cause: error });
  }
  const { child, output, exited } = spawnTracked(process.execPath, ['-e', RECEIVER_PROGRAM], {
    ...process.env,
    BENCH_TLS_KEY: tls.key,
    BENCH_TLS_CERT: tls.cert,
  });
  const stopChildProcess = onCleanup(`stop the webhook receiver (pid ${child.pid})`, () => stopChild(child, exited, 5000));
  const receiver: WebhookReceiver = {
    url: '',
    pid: child.pid,
    receipts: new Map(),
    badRequests: 0,
    failed: 0,
    stop: async () => {
      await stopChildProcess();
      await removeDir();
    },
  };
  countReceipts(child, receiver);
  try {
    receiver.url = `https://127.0.0.1:${await listeningPort(child, output)}/hooks`;
    return receiver;
  } catch (error) {
    await receiver.stop();
    throw error;
  }
}
