import path from 'node:path';

/** Settings read from the environment once, at start. docs/operations.md lists every one. */
export interface Config {
  /** HTTP port. */
  port: number;
  /** PostgreSQL server URL; when unset the embedded PGlite is used. */
  databaseUrl: string | undefined;
  /** Where PGlite keeps its data and where the demo merchant's keys are written. */
  dataDir: string;
  /** `production`, `development` or `test`. Responses are validated against the contract outside production. */
  env: 'production' | 'development' | 'test';
  /** pino log level. */
  logLevel: string;
  /** Multiplies every rate limit (benchmarks only; the server warns at start when it is not 1). */
  rateLimitScale: number;
  /** Public base URL of this server, used in links it returns (hosted pages). */
  publicBaseUrl: string;
  /** Webhook deliveries may go to loopback addresses (`TILL_ALLOW_LOOPBACK_WEBHOOKS=true`): test mode only. */
  allowLoopbackWebhooks: boolean;
  /** How long a webhook delivery waits for an answer, in milliseconds (`TILL_WEBHOOK_TIMEOUT_MS`, default 30000). */
  webhookTimeoutMs: number;
  /** SMTP server for live-mode email (`TILL_SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com`); without it live email stays in the outbox as `not_sent`. */
  smtpUrl: string | undefined;
  /** The From of Till's email (`TILL_SMTP_FROM`). */
  smtpFrom: string;
  /** HTTP worker processes sharing the port (`TILL_WORKERS`, default 1; more than 1 needs `DATABASE_URL`). */
  workers: number;
  /** The bearer token `GET /metrics` asks for (`TILL_METRICS_TOKEN`); unset, /metrics is not served (404). */
  metricsToken: string | undefined;
  /** Whether API requests are recorded in the request log (`TILL_REQUEST_LOGS`, `on` by default; `off` records none). */
  requestLogs: boolean;
}

function smtpUrlFrom(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('TILL_SMTP_URL must be a URL such as smtp://user:password@smtp.example.com:587 or smtps://...:465.');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`TILL_SMTP_URL must start with smtp:// or smtps://; got "${url.protocol}".`);
  return value;
}

function metricsTokenFrom(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[\x21-\x7e]{16,}$/.test(value)) {
    throw new Error('TILL_METRICS_TOKEN must be at least 16 printable characters without spaces (e.g. `openssl rand -hex 32`).');
  }
  return value;
}

function intFrom(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}; got "${value}".`);
  }
  return n;
}

/** Reads and checks the configuration; throws a readable error for a bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const port = intFrom('PORT', env.PORT, 3000, 0, 65535);
  const rateLimitScale = intFrom('TILL_RATE_LIMIT_SCALE', env.TILL_RATE_LIMIT_SCALE, 1, 1, 100_000);
  const workers = intFrom('TILL_WORKERS', env.TILL_WORKERS, 1, 1, 64);
  if (workers > 1 && !env.DATABASE_URL) {
    throw new Error(`TILL_WORKERS=${workers} needs DATABASE_URL: the embedded PGlite database belongs to one process. Unset TILL_WORKERS or set DATABASE_URL.`);
  }
  const webhookTimeoutMs = intFrom('TILL_WEBHOOK_TIMEOUT_MS', env.TILL_WEBHOOK_TIMEOUT_MS, 30_000, 100, 30_000);
  const loopback = (env.TILL_ALLOW_LOOPBACK_WEBHOOKS ?? '').toLowerCase();
  if (loopback !== '' && loopback !== 'true' && loopback !== 'false') {
    throw new Error(`TILL_ALLOW_LOOPBACK_WEBHOOKS must be "true" or "false"; got "${env.TILL_ALLOW_LOOPBACK_WEBHOOKS}".`);
  }
  const allowLoopbackWebhooks = loopback === 'true';
  const requestLogs = (env.TILL_REQUEST_LOGS ?? 'on').toLowerCase();
  if (requestLogs !== 'on' && requestLogs !== 'off') throw new Error(`TILL_REQUEST_LOGS must be "on" or "off"; got "${env.TILL_REQUEST_LOGS}".`);
  if (allowLoopbackWebhooks && mode === 'production') {
    throw new Error('TILL_ALLOW_LOOPBACK_WEBHOOKS=true is refused with NODE_ENV=production: webhooks must never reach loopback addresses there. Unset it.');
  }
  return {
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.TILL_DATA_DIR || './.data'),
    env: mode,
    logLevel: env.LOG_LEVEL || (mode === 'test' ? 'silent' : 'info'),
    rateLimitScale,
    publicBaseUrl: (env.TILL_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    allowLoopbackWebhooks,
    webhookTimeoutMs,
    smtpUrl: smtpUrlFrom(env.TILL_SMTP_URL),
    smtpFrom: env.TILL_SMTP_FROM || 'Till <no-reply@till.localhost>',
    workers,
    metricsToken: metricsTokenFrom(env.TILL_METRICS_TOKEN),
    requestLogs: requestLogs === 'on',
  };
}
