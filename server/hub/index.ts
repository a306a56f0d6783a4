// The real-time notification hub, wire-compatible with ASP.NET Core SignalR so that the official
// `@microsoft/signalr` client connects unchanged. `createApp` mounts its HTTP routes (negotiate);
// `attachHub` takes the WebSocket upgrades of the listening server and LISTENs for invoice
// changes, which reach this process from whichever process (or trigger) made them.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import type { TillDatabase } from '../db/database.js';
import { INVOICE_UPDATED_CHANNEL } from '../db/notifications.js';
import type { HubAccess } from './access.js';
import { Audience, type Member } from './audience.js';
import { DEFAULT_TIMING, HubConnection, type HubTiming } from './connection.js';
import { INVOICE_UPDATED, readInvoiceChange } from './invoice-updated.js';
import { HubMethodError, hubMethods } from './methods.js';
import type { Invocation } from './protocol.js';
import { upgradeListener } from './upgrade.js';

export { HUB_PATH, hubRoutes } from './negotiate.js';

export interface HubDeps {
  database: TillDatabase;
  logger: Logger;
}

export interface HubOptions extends Partial<HubTiming> {
  /** How many invoices one connection may follow by identifier (50). */
  maxFollowed?: number;
}

export interface Hub {
  /** Live connections in this process. */
  readonly connections: number;
  /** Closes every connection (telling clients they may reconnect elsewhere) and stops listening. */
  close(): Promise<void>;
}

/** A client's message when the database connection that feeds the hub was lost: what changed meanwhile was not heard. */
const INTERRUPTED = 'Invoice notifications were interrupted. Reconnect, and read again the invoices you follow.';
const SHUTTING_DOWN = 'The server is shutting down. Reconnect.';
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
  const hooks = { timing, log, invoke: invoker(deps, audience, log, options.maxFollowed ?? 50), gone: (member: Member) => audience.leave(member) };
  const open = (socket: WebSocket, id: string, access: HubAccess) => audience.join(new HubConnection(id, access, socket, hooks));
  const onUpgrade = upgradeListener({ db: deps.database.db, wss, audience, log, open });
  server.on('upgrade', onUpgrade);

  let closing: Promise<void> | undefined;
  return {
    get connections() {
      return audience.size;
    },
    close: () =>
      (closing ??= (async () => {
        server.off('upgrade', onUpgrade);
        audience.closeAll(SHUTTING_DOWN, true);
        await Promise.all([unlisten(), drain(wss, 2_000)]);
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })()),
  };
}
