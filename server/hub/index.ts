// The real-time notification hub, wire-compatible with ASP.NET Core SignalR so that the official
// `@microsoft/signalr` client connects unchanged, over WebSockets, Server-Sent Events or long
// polling. `createApp` mounts its HTTP routes (negotiate, the HTTP transports' requests);
// `attachHub` takes the WebSocket upgrades of the listening server, serves the HTTP transports
// there, LISTENs for invoice changes (which reach this process from whichever process or trigger
// made them), and checks merchant connections' keys again on a timer.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { TillDatabase } from '../db/database.js';
import { INVOICE_UPDATED_CHANNEL } from '../db/notifications.js';
import { stillGranted } from './access.js';
import { Audience, type Member } from './audience.js';
import { type ConnectionHooks, DEFAULT_TIMING, type HubTiming } from './connection.js';
import { HttpTransports, registerHttpTransports, unregisterHttpTransports } from './http-transports.js';
import { INVOICE_UPDATED, readInvoiceChange } from './invoice-updated.js';
import { HubMethodError, hubMethods } from './methods.js';
import type { Invocation } from './protocol.js';
import { openWebSocket, upgradeListener } from './upgrade.js';

export { HUB_PATH, hubRoutes } from './negotiate.js';

export interface HubDeps {
  database: TillDatabase;
  logger: Logger;
}

export interface HubOptions extends Partial<HubTiming> {
  /** How many invoices one connection may follow by identifier (50). */
  maxFollowed?: number;
  /** A long poll with nothing to collect answers 200 empty after this (90 s, ASP.NET's default). */
  pollTimeoutMs?: number;
  /** Merchant connections' keys are checked again this often: a revoked key's connections close within it (30 s). */
  keyCheckMs?: number;
}

/** The revocation bound: a merchant connection whose key was revoked closes within this (the API's cached keys stop within 30 s too). */
export const KEY_CHECK_MS = 30_000;

export interface Hub {
  /** Live connections in this process. */
  readonly connections: number;
  /** Closes every connection (telling clients they may reconnect elsewhere) and stops listening. */
  close(): Promise<void>;
}

/** A client's message when the database connection that feeds the hub was lost: what changed meanwhile was not heard. */
const INTERRUPTED = 'Invoice notifications were interrupted. Reconnect, and read again the invoices you follow.';
const SHUTTING_DOWN = 'The server is shutting down. Reconnect.';
const KEY_REVOKED = 'The key of this connection was revoked (or its merchant expired). Connect with a valid key.';
const MAX_MESSAGE_BYTES = 32 * 1024;

/** Runs a client's invocation; a failure the client is not meant to read says only that it failed. */
function invoker(deps: HubDeps, audience: Audience, log: Logger, maxFollowed: number) {
  return async (member: Member, invocation: Invocation): Promise<{ result?: unknown } | { error: string }> => {
    const method = hubMethods[invocation.target];
    if (!method) return { error: `Unknown hub method '${invocation.target}'. This hub has ${Object.keys(hubMethods).join(' and ')}.` };
    try {
      return { result: await method({ db: deps.database.db, audience, member, maxFollowed }, invocation.arguments) };
    } catch (err) {
      if (err instanceof HubMethodError) return { error: err.message };
      log.error({ err, target: invocation.target, connectionId: member.id }, 'hub method failed');
      return { error: `An unexpected error occurred invoking '${invocation.target}' on the server.` };
    }
  };
}

/** Hands a database notification to everyone who hears it. */
function announcer(audience: Audience, log: Logger) {
  return (payload: string) => {
    const change = readInvoiceChange(payload);
    if (!change) return log.warn({ payload }, 'hub ignored a notification it cannot read');
    for (const member of audience.recipients(change)) member.invoke(INVOICE_UPDATED, [change.event]);
  };
}

/** Closes, without reconnecting, every merchant connection whose key no longer grants it. */
function keyChecker(deps: HubDeps, audience: Audience, log: Logger) {
  let running = false;
  return async () => {
    if (running) return;
    running = true;
    try {
      const verdicts = new Map<string, Promise<boolean>>();
      for (const member of audience.all()) {
        if (member.access.kind !== 'merchant') continue;
        const { keyHash } = member.access;
        if (!verdicts.has(keyHash)) verdicts.set(keyHash, stillGranted(deps.database.db, member.access));
        if (!(await verdicts.get(keyHash))) member.close(KEY_REVOKED, false);
      }
    } catch (err) {
      log.warn({ err }, "hub could not check its connections' keys; trying again at the next check");
    } finally {
      running = false;
    }
  };
}

/** Waits up to `ms` for the sockets to finish their closing handshake, then cuts the rest. */
async function drain(wss: WebSocketServer, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (wss.clients.size > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  for (const socket of wss.clients) socket.terminate();
}

/** Serves the hub's WebSockets on `server` and starts listening for invoice changes. */
export async function attachHub(server: Server, deps: HubDeps, options: HubOptions = {}): Promise<Hub> {
  const log = deps.logger.child({ component: 'hub' });
  const timing: HubTiming = { ...DEFAULT_TIMING, ...options };
  const audience = new Audience();
  const unlisten = await deps.database.listen(INVOICE_UPDATED_CHANNEL, {
    notification: announcer(audience, log),
    restored: () => {
      log.warn('hub listener reconnected; closing connections so that clients re-read');
      audience.closeAll(INTERRUPTED, true);
    },
    error: (err) => log.warn({ err }, 'hub listener lost its database connection; reconnecting'),
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const hooks: ConnectionHooks = {
    timing,
    log,
    invoke: invoker(deps, audience, log, options.maxFollowed ?? 50),
    gone: (member: Member) => audience.leave(member),
  };
  const onUpgrade = upgradeListener({
    db: deps.database.db,
    wss,
    audience,
    log,
    open: (socket, id, access) => openWebSocket(socket, id, access, hooks, audience),
  });
  server.on('upgrade', onUpgrade);
  const pollTimeoutMs = options.pollTimeoutMs ?? 90_000;
  registerHttpTransports(server, new HttpTransports({ db: deps.database.db, audience, hooks, pollTimeoutMs, maxMessageBytes: MAX_MESSAGE_BYTES }));
  const keyCheck = setInterval(keyChecker(deps, audience, log), options.keyCheckMs ?? KEY_CHECK_MS);
  keyCheck.unref();

  let closing: Promise<void> | undefined;
  return {
    get connections() {
      return audience.size;
    },
    close: () =>
      (closing ??= (async () => {
        server.off('upgrade', onUpgrade);
        unregisterHttpTransports(server);
        clearInterval(keyCheck);
        audience.closeAll(SHUTTING_DOWN, true);
        await Promise.all([unlisten(), drain(wss, 2_000)]);
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })()),
  };
}
