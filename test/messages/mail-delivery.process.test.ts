// Live-mode email over real SMTP: the running server (`startServer`, with its jobs) and an SMTP
// server on loopback (the smtp-server package). A queued message is sent at once after its
// commit, with its attachments (an invoice carries its PDF); a refusing SMTP server is retried with backoff and then marked failed, while the request
// that wrote the message succeeded; without TILL_SMTP_URL, and for text messages, nothing is sent.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { type RunningServer, startServer } from '../../server/main.js';
import { ManualClock } from '../../server/shared/clock.js';
import { openTestDatabase } from '../support/database.js';
import { seedPglite } from '../support/processes.js';
import { call, usingPostgres } from '../support/server.js';

interface Mail {
  to: string[];
  raw: string;
}

/** The text of a quoted-printable message (soft line breaks joined, escapes decoded). */
const text = (mail: Mail) => mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** An SMTP server on loopback that keeps what it receives; it refuses recipients at `refuse.example.com`. */
async function startSmtp(): Promise<{ port: number; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refuse.example.com')) return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

// A first start on an empty database runs initdb (PGlite) and every migration, which took most of
// this file's time; what it proves is delivery, so each server starts on a database that is
// already migrated: on PostgreSQL a copy of the run's template database, on PGlite a data
// directory loaded once from the template's dump and copied for each server.
let seededPglite: Promise<string> | undefined;
function seededPgliteDir(): Promise<string> {
  seededPglite ??= (async () => {
    const dir = path.join(await mkdtemp(path.join(tmpdir(), 'till-mail-seed-')), 'pglite');
    await seedPglite(dir);
    return dir;
  })();
  return seededPglite;
}
afterAll(async () => {
  if (seededPglite) await rm(path.dirname(await seededPglite), { recursive: true, force: true });
});

/** The running server (`startServer`, with its jobs) with `env`, on a migrated database of its own; a live merchant of it. */
async function serverWith(label: string, env: NodeJS.ProcessEnv, clock?: ManualClock) {
  const dataDir = await mkdtemp(path.join(tmpdir(), `till-${label}-`));
  const postgres = usingPostgres ? await openTestDatabase(label, 1) : undefined;
  if (!postgres) await cp(await seededPgliteDir(), path.join(dataDir, 'pglite'), { recursive: true });
  const running = await startServer({
    env: { NODE_ENV: 'test', PORT: '0', TILL_DATA_DIR: dataDir, ...(postgres ? { DATABASE_URL: postgres.url } : {}), ...env },
    announce: false,
    ...(clock ? { clock } : {}),
  });
  const merchant = (await createMerchant(running.database.db, clock ?? { now: () => new Date() }, { name: 'Live Bakery' })).credentials;
  const drop = async () => {
    await running.close();
    await postgres?.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { running, merchant, drop };
}

const messageRows = (running: RunningServer, to: string) =>
  running.database.db
    .selectFrom('messages')
    .select(['id', 'channel', 'status', 'attempts', 'last_error', 'sent_at'])
    .where('recipient', '=', to)
    .orderBy('seq')
    .execute();

type MessageRow = Awaited<ReturnType<typeof messageRows>>[number];

/** The mail the SMTP server received for `to`, waited for: it is sent after the commit, not within the request. */
const mailTo = (smtp: { mails: Mail[] }, to: string) =>
  vi.waitFor(
    () => {
      const mail = smtp.mails.find((m) => m.to.includes(to));
      if (!mail) throw new Error(`no mail to ${to} yet`);
      return mail;
    },
    { timeout: 10_000, interval: 50 },
  );

/** The outbox rows of `to`, waited for until the first passes `check` (delivery writes it after the request). */
const rowsWhen = (running: RunningServer, to: string, check: (first: MessageRow | undefined) => void) =>
  vi.waitFor(
    async () => {
      const rows = await messageRows(running, to);
      check(rows[0]);
      return rows;
    },
    { timeout: 10_000, interval: 50 },
  );

/** A live hosted session that notifies its payer by email and text at creation. */
async function notifyingSession(running: RunningServer, key: string, to: string, phone = '+1 415 555 0100') {
  const res = await call(running.url, 'POST', '/v1/checkout-sessions', {
    key,
    body: {
      amount: 12,
      currency: 'USD',
      mode: 'hosted',
      paymentType: 'oneTime',
      successUrl: 'https://bakery.example.com/ok',
      notifyCustomer: true,
      customerEmail: to,
      customerPhone: phone,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

describe('live email over SMTP', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: Awaited<ReturnType<typeof serverWith>>;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await serverWith('mail', { TILL_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, TILL_SMTP_FROM: 'Till <till@bakery.example.com>' }, clock);
  });
  afterAll(async () => {
    await server?.drop();
    await smtp?.close();
  });

  it('sends a queued email at once after its commit; the outbox row becomes sent; a text message is not_sent', async () => {
    const s = await notifyingSession(server.running, server.merchant.keys.live.secret, 'ana@bakery-customers.example.com');
    const mail = await mailTo(smtp, 'ana@bakery-customers.example.com');
    expect(mail).toBeDefined();
    expect(mail.raw).toContain('From: Till <till@bakery.example.com>');
    expect(mail.raw).toMatch(/Subject: Invoice from Live Bakery: 12\.00 USD/);
    expect(text(mail)).toContain(`Pay here: ${s.url}`);
    const rows = await rowsWhen(server.running, 'ana@bakery-customers.example.com', (first) => expect(first?.status).toBe('sent'));
    expect(rows).toMatchObject([{ channel: 'email', status: 'sent', attempts: 1, last_error: null }]);
    const sms = await rowsWhen(server.running, '+1 415 555 0100', (first) => expect(first?.status).toBe('not_sent'));
    expect(sms[0]).toMatchObject({ channel: 'sms', status: 'not_sent', last_error: 'No text message provider is connected.' });
  });

  it('a live card payment emails its receipt', async () => {
    const key = server.merchant.keys.live;
    const s = (
      await call(server.running.url, 'POST', '/v1/checkout-sessions', {
        key: key.secret,
        body: { amount: 7.5, currency: 'EUR', mode: 'embedded', paymentType: 'oneTime', customerEmail: 'cara@bakery-customers.example.com' },
      })
    ).json;
    const client = { key: key.publishable, clientSecret: s.clientSecret };
    const pm = await call(server.running.url, 'POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
      ...client,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' },
    });
    const confirmed = await call(server.running.url, 'POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...client, body: { paymentMethodId: pm.json.id } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const mail = await mailTo(smtp, 'cara@bakery-customers.example.com');
    expect(mail.raw).toMatch(/Subject: Your receipt from Live Bakery/);
    expect(text(mail)).toContain('Amount paid: 7.50 EUR');
    expect(text(mail)).toContain('Paid with: Visa ending in 4242');
    expect(text(mail)).not.toContain('4242424242424242');
  });

  it('a live invoice sent to its payer carries its PDF as an attachment over SMTP', async () => {
    const key = server.merchant.keys.live.secret;
    const created = await call(server.running.url, 'POST', '/v1/invoices', {
      key,
      body: { customer: { email: 'dora@bakery-customers.example.com' }, currency: 'EUR', lineItems: [{ name: 'Wedding cake', quantity: 1, unitAmount: 240 }] },
    });
    expect(created.status, created.text).toBe(201);
    const sent = await call(server.running.url, 'POST', `/v1/invoices/${created.json.id}/send`, { key });
    expect(sent.status, sent.text).toBe(200);
    const mail = await mailTo(smtp, 'dora@bakery-customers.example.com');
    expect(mail.raw).toMatch(new RegExp(`Subject: Invoice ${created.json.invoiceNumber}`));
    expect(text(mail)).toContain(`Pay it at ${created.json.hostedUrl}`);
    expect(mail.raw).toMatch(/Content-Type: multipart\/mixed/);
    expect(mail.raw).toMatch(new RegExp(`Content-Type: application/pdf; name=${created.json.invoiceNumber}\\.pdf`));
    expect(mail.raw).toMatch(new RegExp(`Content-Disposition: attachment; filename=${created.json.invoiceNumber}\\.pdf`));
    // The attachment is the PDF itself, base64 in the mail.
    const part = mail.raw.split(/Content-Disposition: attachment[^\r\n]*\r?\n/)[1]!;
    const base64 = part
      .trimStart()
      .split(/\r?\n--/)[0]!
      .replace(/\s+/g, '');
    expect(Buffer.from(base64, 'base64').subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('a refused email is retried with backoff, then failed; the request that wrote it succeeded', async () => {
    await notifyingSession(server.running, server.merchant.keys.live.secret, 'nobody@refuse.example.com', '+1 415 555 0101');
    let rows = await rowsWhen(server.running, 'nobody@refuse.example.com', (first) => expect(first).toMatchObject({ last_error: expect.any(String) }));
    expect(rows[0]).toMatchObject({ status: 'queued', attempts: 1, last_error: 'SMTP EENVELOPE 550' });
    for (const [minutes, attempts] of [
      [1, 2],
      [4, 3],
      [16, 4],
      [64, 5],
    ] as const) {
      // Not due before its backoff: a sweep now changes nothing.
      await server.running.jobs!.runNow('messageDelivery');
      expect((await messageRows(server.running, 'nobody@refuse.example.com'))[0]!.attempts).toBe(attempts - 1);
      clock.advance(minutes * 60);
      await server.running.jobs!.runNow('messageDelivery');
      rows = await messageRows(server.running, 'nobody@refuse.example.com');
      expect(rows[0]!.attempts).toBe(attempts);
    }
    expect(rows[0]).toMatchObject({ status: 'failed', attempts: 5, sent_at: null });
    expect(smtp.mails.some((m) => m.to.includes('nobody@refuse.example.com'))).toBe(false);
  });
});

describe('live email without an SMTP server', () => {
  let server: Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    server = await serverWith('nomail', {});
  });
  afterAll(async () => server?.drop());

  it('stays in the outbox as not_sent, with the reason', async () => {
    await notifyingSession(server.running, server.merchant.keys.live.secret, 'ben@bakery-customers.example.com');
    const rows = await rowsWhen(server.running, 'ben@bakery-customers.example.com', (first) => expect(first?.status).toBe('not_sent'));
    expect(rows[0]).toMatchObject({ channel: 'email', status: 'not_sent', attempts: 1, last_error: 'No SMTP server is configured (TILL_SMTP_URL).' });
  });
});
