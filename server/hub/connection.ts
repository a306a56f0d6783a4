// One client, whatever its transport: the handshake, then invocations answered in order, pings
// while it is quiet, and a close message whenever the server ends it. The transport is a `Wire`
// (a WebSocket, or a Server-Sent Events stream or long polls with HTTP POSTs to send).
import type { Logger } from 'pino';
import type { HubAccess } from './access.js';
import type { Member } from './audience.js';
import { answerHandshake, type Invocation, MessageType, messages, parseClientMessage, ProtocolError, splitRecords } from './protocol.js';

/** How long the hub waits, in milliseconds (ASP.NET Core SignalR's defaults). */
export interface HubTiming {
  /** A ping is sent this often (15 s). */
  keepAliveMs: number;
  /** A client silent this long is gone (30 s; clients ping every 15 s). */
  clientTimeoutMs: number;
  /** The handshake must arrive within this (15 s). */
  handshakeTimeoutMs: number;
}

export const DEFAULT_TIMING: HubTiming = { keepAliveMs: 15_000, clientTimeoutMs: 30_000, handshakeTimeoutMs: 15_000 };

/** Text not yet ended by a record separator is limited too, not only each frame. */
const MAX_BUFFERED = 64 * 1024;

export interface ConnectionHooks {
  timing: HubTiming;
  log: Logger;
  /** Runs an invocation; its outcome is the completion. */
  invoke(member: Member, invocation: Invocation): Promise<{ result?: unknown } | { error: string }>;
  /** The socket closed. */
  gone(member: Member): void;
}

/** How a connection reaches its client: what the transport does with the text of the server's messages. */
export interface Wire {
  /** Delivers one or more records to the client. */
  send(text: string): void;
  /** Ends the transport once what was sent has gone; the connection then ends (`ended`). */
  end(): void;
}

export class HubConnection implements Member {
  private buffered = '';
  private handshaken = false;
  private closing = false;
  private gone = false;
  private lastReceived = Date.now();
  /** Invocations run one at a time, in the order they came (ASP.NET's default too). */
  private queue: Promise<void> = Promise.resolve();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    readonly id: string,
    readonly access: HubAccess,
    private readonly wire: Wire,
    private readonly hooks: ConnectionHooks,
  ) {
    const { keepAliveMs, handshakeTimeoutMs } = hooks.timing;
    this.timers.push(setTimeout(() => this.handshaken || this.close('The handshake did not arrive in time.'), handshakeTimeoutMs));
    this.timers.push(setInterval(() => this.keepAlive(), keepAliveMs));
  }

  /** Events reach a client only once its handshake is done. */
  invoke(target: string, args: unknown[]): void {
    if (this.handshaken) this.send(messages.invocation(target, args));
  }

  close(error?: string, allowReconnect?: boolean): void {
    if (this.closing) return;
    this.closing = true;
    if (this.handshaken) this.send(messages.close(error, allowReconnect));
    this.wire.end();
  }

  /** Whether the server has ended it (its transport may still be delivering the close message). */
  get isClosing(): boolean {
    return this.closing;
  }

  private send(text: string): void {
    this.wire.send(text);
  }

  private keepAlive(): void {
    if (Date.now() - this.lastReceived > this.hooks.timing.clientTimeoutMs) {
      this.close('Server timeout elapsed without receiving a message from the client.', true);
      return;
    }
    if (this.handshaken) this.send(messages.ping());
  }

  /** Text from the client (a WebSocket frame, an HTTP POST's body). */
  received(text: string): void {
    if (this.closing) return;
    this.lastReceived = Date.now();
    const { records, rest } = splitRecords(this.buffered + text);
    this.buffered = rest;
    if (rest.length > MAX_BUFFERED) return this.close('A message is too large.');
    for (const text of records) {
      if (this.closing) return;
      if (!this.handshaken) this.handshake(text);
      else this.dispatch(text);
    }
  }

  private handshake(text: string): void {
    const answer = answerHandshake(text);
    this.send(messages.handshake(answer.ok ? undefined : answer.error));
    if (!answer.ok) return this.close();
    this.handshaken = true;
  }

  private dispatch(text: string): void {
    let message;
    try {
      message = parseClientMessage(text);
    } catch (err) {
      if (err instanceof ProtocolError) return this.close(`Connection closed with an error: ${err.message}`);
      throw err;
    }
    if (message.type === MessageType.Close) return this.close();
    if (message.type === MessageType.Invocation || message.type === MessageType.StreamInvocation) this.enqueue(message);
  }

  private enqueue(invocation: Invocation): void {
    this.queue = this.queue
      .then(async () => {
        const outcome =
          invocation.type === MessageType.StreamInvocation
            ? { error: `'${invocation.target}' is not a streaming method: call it with invoke, not stream.` }
            : await this.hooks.invoke(this, invocation);
        if (invocation.invocationId !== undefined) this.send(messages.completion(invocation.invocationId, outcome));
      })
      .catch((err) => this.hooks.log.error({ err, connectionId: this.id }, 'hub invocation failed'));
  }

  /** The transport has ended (the socket closed, the client went away or said DELETE). */
  ended(): void {
    if (this.gone) return;
    this.gone = true;
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.hooks.gone(this);
  }
}
