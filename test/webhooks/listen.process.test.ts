// `npm run listen` end to end: the CLI as a child process against a real server, a local receiver,
// a paid checkout session; the receiver gets the events the filter keeps, signed with the secret
// the CLI printed (verified by the SDK), and the CLI prints one line per delivery. It reconnects
// after a lost stream with Last-Event-ID, so nothing written meanwhile is missed.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '../../sdk/src/webhooks.js';
import { cancelledSession } from '../support/events.js';
import { createTestSession, useTestServer } from '../support/server.js';

interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

const t = useTestServer();
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address() as { port: number };
  receiverUrl = `http://127.0.0.1:${address.port}/webhooks`;
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
  received.length = 0;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Starts the CLI; its output lines, and a wait for a line that matches. */
function listen(args: string[], baseUrl = t.url) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/listen.ts', '--forward-to', receiverUrl, '--base-url', baseUrl, ...args], {
    env: { ...process.env, TILL_SECRET_KEY: t.merchantA.keys.test.secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let pending = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const line = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find((l) => pattern.test(l));
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join('\n')}`)), timeoutMs);
      waiters.add(check);
      check();
    });
  return { child, lines, line };
}

/** Pays a new test-mode session of merchant A with a card: checkout.session.completed, payment.succeeded and more. */
async function paidSession(): Promise<string> {
  const s = await createTestSession(t, t.merchantA, false, { amount: 12.5 });
  const as = { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret };
  const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' };
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { ...as, body: card });
  expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...as, body: { paymentMethodId: pm.json.id } })).status).toBe(200);
  return s.id;
}

describe('npm run listen', () => {
  it('forwards the filtered events of a paid session, signed with the secret it printed, one line each', async () => {
    const cli = listen(['--events', 'checkout.session.*,payment.succeeded']);
    const secret = (await cli.line(/^Signing secret: whsec_/)).split(': ')[1]!;
    await cli.line(/^Ready\./);
    const sessionId = await paidSession();
    const printed = await cli.line(/^checkout\.session\.completed evt_\w+ → 200 \(\d+ ms\)$/);
    await cli.line(/^payment\.succeeded evt_\w+ → 200/);
    const events = received.map((r) => verifyWebhook(r.body, r.headers, secret));
    const completed = events.find((e) => e.type === 'checkout.session.completed')!;
    expect((completed.data.object as { sessionId: string }).sessionId).toBe(sessionId);
    expect(printed).toContain(completed.id);
    expect(events.every((e) => e.type === 'checkout.session.completed' || e.type === 'payment.succeeded')).toBe(true);
    // The body is the envelope the events API shows, byte for byte what a webhook delivery carries.
    const stored = await t.call('GET', `/v1/events/${completed.id}`, { key: t.merchantA.keys.test.secret });
    expect(received.find((r) => r.body.includes(completed.id))!.body).toBe(JSON.stringify(stored.json));
  });

  it('signs with --secret when given, and refuses a live key', async () => {
    const cli = listen(['--secret', 'my_local_secret', '--events', 'checkout.session.cancelled']);
    await cli.line(/^Ready\./);
    await cancelledSession(t);
    await cli.line(/^checkout\.session\.cancelled evt_\w+ → 200/);
    expect(verifyWebhook(received[0]!.body, received[0]!.headers, 'my_local_secret').type).toBe('checkout.session.cancelled');

    const live = spawn(process.execPath, [
      '--import',
      'tsx',
      'scripts/listen.ts',
      '--forward-to',
      receiverUrl,
      '--base-url',
      t.url,
      '--api-key',
      t.merchantA.keys.live.secret,
    ]);
    let output = '';
    live.stderr.on('data', (c: Buffer) => (output += c));
    const code = await new Promise((resolve) => live.on('exit', resolve));
    expect(code).toBe(2);
    expect(output).toContain('test secret key');
  });

  it('reconnects after the stream is lost, with Last-Event-ID, and delivers what was written meanwhile', async () => {
    const proxy = await startProxy(new URL(t.url).port);
    try {
      const cli = listen(['--events', 'checkout.session.cancelled'], proxy.url);
      await cli.line(/^Ready\./);
      await cancelledSession(t);
      await cli.line(/^checkout\.session\.cancelled evt_\w+ → 200/);
      proxy.refuse(true);
      proxy.dropAll();
      await cli.line(/^(The stream ended|Cannot reach)/);
      const missed = await cancelledSession(t);
      proxy.refuse(false);
      await cli.line(/^Reconnected\./);
      const delivered = await vi.waitFor(
        () => {
          const found = received.find((r) => r.body.includes(missed));
          if (!found) throw new Error(`the event of ${missed} was not forwarded`);
          return found;
        },
        { timeout: 15_000 },
      );
      expect(JSON.parse(delivered.body).type).toBe('checkout.session.cancelled');
      expect(received.filter((r) => r.body.includes(missed))).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

/** A TCP proxy to the test server that can cut every connection and refuse new ones: a lost network, for the CLI. */
async function startProxy(port: string) {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createNetServer((client) => {
    if (refusing) return client.destroy();
    const upstream = connect(Number(port), '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    refuse: (value: boolean) => void (refusing = value),
    dropAll: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
}
