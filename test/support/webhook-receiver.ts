// Real webhook receivers for tests: HTTPS servers on 127.0.0.1 with a self-signed certificate
// (made with openssl once per process). Delivery reaches them only with
// TILL_ALLOW_LOOPBACK_WEBHOOKS, in test mode.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';

let tls: { key: Buffer; cert: Buffer } | undefined;
function certificate() {
  if (!tls) {
    const dir = mkdtempSync(path.join(tmpdir(), 'till-receiver-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1'], {
      stdio: 'ignore',
    });
    tls = { key: readFileSync(key), cert: readFileSync(cert) };
  }
  return tls;
}

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  raw: string;
  json: any;
}

/** What the receiver does with the n-th request (0-based): a status, or 'hang' to never answer. */
export type Behaviour = (n: number, req: ReceivedWebhook, res: ServerResponse) => number | 'hang' | void;

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  behave(b: Behaviour): void;
  /** TLS connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  let current = behaviour;
  const received: ReceivedWebhook[] = [];
  const server = https.createServer(certificate(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const hook = { headers: req.headers, raw, json };
      const n = received.length;
      received.push(hook);
      const outcome = current(n, hook, res);
      if (outcome === 'hang' || res.headersSent) return;
      res.statusCode = outcome ?? 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ received: true, n }));
    });
  });
  let connections = 0;
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `https://127.0.0.1:${port}/hooks`,
    received,
    behave(b) {
      current = b;
    },
    connections: () => connections,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The receivers of one test file: `start` them as needed, `closeAll` in its afterAll. */
export function receiverPool(): { start: typeof startReceiver; closeAll(): Promise<void> } {
  const started: Receiver[] = [];
  return {
    async start(behaviour) {
      const r = await startReceiver(behaviour);
      started.push(r);
      return r;
    },
    async closeAll() {
      await Promise.all(started.splice(0).map((r) => r.close()));
    },
  };
}
