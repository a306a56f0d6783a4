// Delivery of the live outbox. A live message is queued in the transaction that wrote it; its
// trigger announces it at commit, and this process (or any other) claims it and sends it: email
// over SMTP with nodemailer when TILL_SMTP_URL is set, with the files it carries (an invoice's PDF). What has no way out (no SMTP server, or a
// text message, which has no provider) is marked `not_sent`. A failed attempt is retried with
// backoff (1, 4, 16, 64 minutes), then `failed`. A sweep every minute picks up retries and
// anything a stopped process left claimed.
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { TillDatabase } from '../db/database.js';
import { MESSAGE_QUEUED_CHANNEL, type Unlisten } from '../db/notifications.js';
import type { MessageRow } from '../domain/messages/message.tables.js';
import { attachmentsOf, type DeliveryOutcome, claimDeliveries, recordDelivery } from '../domain/messages/message.service.js';
import type { Clock } from '../shared/clock.js';

export type MailSettings = Pick<Config, 'smtpUrl' | 'smtpFrom'>;

export interface MessageDelivery {
  /** Sends everything due now; answers how many messages were handled. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/** The short reason of an SMTP failure: its code and status, never its text (which may echo addresses or credentials). */
function smtpReason(err: unknown): string {
  const e = err as { code?: string; responseCode?: number };
  return `SMTP ${[e.code, e.responseCode].filter(Boolean).join(' ') || 'error'}`;
}

async function attempt(db: TillDatabase['db'], transport: Transporter | undefined, from: string, message: MessageRow): Promise<DeliveryOutcome> {
  if (message.channel === 'sms') return { kind: 'not_sent', reason: 'No text message provider is connected.' };
  if (!transport) return { kind: 'not_sent', reason: 'No SMTP server is configured (TILL_SMTP_URL).' };
  const attachments = (await attachmentsOf(db, message)).map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content }));
  try {
    await transport.sendMail({
      from,
      to: message.recipient,
      subject: message.subject ?? '',
      text: message.body,
      messageId: `<${message.id}@till>`,
      attachments,
    });
    return { kind: 'sent' };
  } catch (err) {
    return { kind: 'failed', reason: smtpReason(err) };
  }
}

/** Starts delivering: at once on each queued message, and on every sweep. */
export async function startMessageDelivery(database: TillDatabase, clock: Clock, logger: Logger, settings: MailSettings): Promise<MessageDelivery> {
  // nodemailer is loaded only where mail goes out over SMTP: no start pays for loading it otherwise.
  const transport = settings.smtpUrl ? (await import('nodemailer')).default.createTransport(settings.smtpUrl) : undefined;
  let running: Promise<number> | undefined;
  let again = false;

  async function drain(): Promise<number> {
    let handled = 0;
    for (let batch = await claimDeliveries(database.db, clock); batch.length > 0; batch = await claimDeliveries(database.db, clock)) {
      for (const message of batch) {
        const outcome = await attempt(database.db, transport, settings.smtpFrom, message);
        await recordDelivery(database.db, clock, message, outcome);
        if (outcome.kind === 'failed') logger.warn({ messageId: message.id, attempts: message.attempts, reason: outcome.reason }, 'message delivery failed');
        handled++;
      }
    }
    return handled;
  }

  /** One drain at a time; a request during one runs another right after it. */
  function sweep(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let handled = 0;
      do {
        again = false;
        handled += await drain();
      } while (again);
      return handled;
    })().finally(() => (running = undefined));
    return running;
  }

  const kick = () => void sweep().catch((err: unknown) => logger.error({ err }, 'message delivery failed'));
  const unlisten: Unlisten = await database.listen(MESSAGE_QUEUED_CHANNEL, { notification: kick, restored: kick });
  kick();
  return {
    sweep,
    async stop() {
      await unlisten();
      await running?.catch(() => undefined);
      transport?.close();
    },
  };
}
