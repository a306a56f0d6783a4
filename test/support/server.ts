// Drives the real app over HTTP on a database of its own, a copy of the run's migrated template
// (test/support/database.ts): in-memory PGlite by default, on the PostgreSQL server of DATABASE_URL when it is set.
import type { Server } from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { closeRequestLog, createApp, type CreateAppOptions } from '../../server/app.js';
import { type Clock, systemClock } from '../../server/shared/clock.js';
import { loadConfig } from '../../server/config.js';
import type { TillDatabase } from '../../server/db/database.js';
import { randomToken } from '../../server/shared/crypto.js';
import { createMerchant, type MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import type { RatePlan } from '../../server/domain/merchants/merchant.tables.js';
import { createLogger } from '../../server/log.js';
import { attachHub, type Hub, type HubOptions } from '../../server/hub/index.js';
import { listenApp } from '../../server/http/listen.js';
import { openTestDatabase } from './database.js';

export { emptyPostgres, usingPostgres } from './database.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export interface CallOptions {
  /** `Authorization: Bearer <key>` (checkout) */
  key?: string;
  /** `x-api-key` (commerce) */
  apiKey?: string;
  clientSecret?: string;
  body?: unknown;
  /** A raw body, sent as-is with JSON content type. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  database: TillDatabase;
  /** The PostgreSQL database this server uses (for another process on it); undefined on PGlite. */
  databaseUrl: string | undefined;
  /** Two merchants, so every test can check that one never sees the other's objects. */
  merchantA: MerchantCredentials;
  merchantB: MerchantCredentials;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** Another app instance on the same database (a second server process, in effect), with its own notification hub. */
  startSibling(): Promise<{ url: string; close(): Promise<void> }>;
  newMerchant(name?: string, ratePlan?: RatePlan): Promise<MerchantCredentials>;
  close(): Promise<void>;
}

export interface TestServerOptions extends CreateAppOptions {
  clock?: Clock;
  /** Where the app logs (default: nowhere). */
  logger?: ReturnType<typeof createLogger>;
  rateLimitScale?: number;
  env?: 'test' | 'production';
  /** Settings over the test defaults (e.g. `allowLoopbackWebhooks`, `webhookTimeoutMs`). */
  config?: Partial<ReturnType<typeof loadConfig>>;
  /** Make the server's own address its public URL (for pages opened in a browser: 3-D Secure and QR links then point at it). */
  publicUrlIsServer?: boolean;
  /** Settings of the notification hub (timings, the follow limit). */
  hub?: HubOptions;
}

interface Listening {
  url: string;
  server: Server;
  hub: Hub;
  app: ReturnType<typeof createApp>;
}

/** Listens on a free port and attaches the notification hub, as `startServer` does. */
async function listen(app: ReturnType<typeof createApp>, hubDeps: Parameters<typeof attachHub>[1], hubOptions?: HubOptions): Promise<Listening> {
  const server = await listenApp(app, 0, '127.0.0.1');
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}`;
  return { url, server, hub: await attachHub(server, hubDeps, hubOptions), app };
}

async function stop({ server, hub, app }: Listening) {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  await hub.close();
  await stopped;
  server.closeAllConnections();
  // What the request log still queues is written before the database closes.
  await closeRequestLog(app);
}

export async function call<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.clientSecret) headers['x-client-secret'] = options.clientSecret;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { database, url: databaseUrl, close: closeDatabase } = await openTestDatabase();
  const clock = options.clock ?? systemClock;
  const config = { ...loadConfig({ NODE_ENV: options.env ?? 'test' }), rateLimitScale: options.rateLimitScale ?? 1, ...options.config };
  const logger = options.logger ?? testLogger();
  const makeApp = () => createApp({ database, clock, config, logger }, options);
  const start = () => listen(makeApp(), { database, logger }, options.hub);
  const main = await start();
  const { url } = main;
  if (options.publicUrlIsServer) config.publicBaseUrl = url;
  const suffix = randomToken(6);
  const merchantA = (await createMerchant(database.db, clock, { name: `Merchant A ${suffix}` })).credentials;
  const merchantB = (await createMerchant(database.db, clock, { name: `Merchant B ${suffix}` })).credentials;
  const siblings: Listening[] = [];
  return {
    url,
    database,
    databaseUrl,
    merchantA,
    merchantB,
    call: (method, path, callOptions) => call(url, method, path, callOptions),
    async startSibling() {
      const sibling = await start();
      siblings.push(sibling);
      return { url: sibling.url, close: () => stop(sibling) };
    },
    async newMerchant(name = 'Another merchant', ratePlan: RatePlan = 'standard') {
      return (await createMerchant(database.db, clock, { name: `${name} ${randomToken(6)}`, ratePlan })).credentials;
    },
    async close() {
      await Promise.all([stop(main), ...siblings.map((s) => (s.server.listening ? stop(s) : Promise.resolve()))]);
      await closeDatabase();
    },
  };
}

/**
 * The file's test server: started before its first test (beforeAll), closed after its last
 * (afterAll), on a database of its own. Read it inside tests and hooks: before it has started,
 * any use throws saying so. `options` may be a function, for options an earlier hook made (a
 * clock, a receiver's URL).
 */
export function useTestServer(options: TestServerOptions | (() => TestServerOptions) = {}): TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await server?.close();
    server = undefined;
  });
  return new Proxy({} as TestServer, {
    get(_, key) {
      if (!server) throw new Error(`useTestServer(): the server starts before the file's first test; read t.${String(key)} inside a test or a hook`);
      const value: unknown = Reflect.get(server, key);
      return typeof value === 'function' ? value.bind(server) : value;
    },
  });
}

let logFiles = 0;
/**
 * Silent, unless `TILL_TEST_LOG_DIR` is set (CI sets it): then every server's log, at debug
 * level, goes to a file of its own there, for the secrets scan after the run.
 */
function testLogger() {
  const dir = process.env.TILL_TEST_LOG_DIR;
  if (!dir) return createLogger('silent');
  const dest = path.join(dir, `server-${process.pid}-${++logFiles}.log`);
  return createLogger('debug', pino.destination({ dest, sync: true, mkdir: true }));
}

/** Creates a checkout session over HTTP, as a merchant's server does; returns its id and client secret. */
export async function createTestSession(t: TestServer, merchant: MerchantCredentials, livemode = false, body: Record<string, unknown> = {}) {
  const key = livemode ? merchant.keys.live.secret : merchant.keys.test.secret;
  const res = await t.call('POST', '/v1/checkout-sessions', { key, body: { amount: 25, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', ...body } });
  if (res.status !== 201) throw new Error(`could not create a session: ${res.status} ${res.text}`);
  return { id: res.json.id as string, clientSecret: res.json.clientSecret as string, created: res.json };
}
