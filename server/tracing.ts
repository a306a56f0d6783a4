// OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Without it nothing of the SDK is loaded: the spans
// Till makes itself (server/shared/tracing.ts) are skipped by a boolean test.
//
// Spans: the HTTP server span of each request (the HTTP instrumentation, which honours an incoming
// `traceparent`), the operation (its operationId, server/http/tracing.ts), each SQL statement (the
// pg instrumentation on PostgreSQL, server/db/traced-sql.ts on PGlite), each webhook delivery (a
// child of the request that wrote its event) with its outgoing HTTP request, and each job run.
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import { enableTracing } from './shared/tracing.js';

export interface Tracing {
  /** Where spans go. */
  endpoint: string;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/** Requests that make no trace: the health check and metrics scrapes. */
const UNTRACED = /^\/(healthz|metrics)(\?|$)/;

/** The OTLP/HTTP traces URL the environment names, or undefined when tracing is off. */
export function tracesEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (url === undefined) return undefined;
  try {
    new URL(url);
  } catch {
    throw new Error(`OTEL_EXPORTER_OTLP_ENDPOINT must be a URL such as http://otel-collector:4318; got "${traces || base}".`);
  }
  return url;
}

let started: Tracing | undefined;

/**
 * Starts the SDK (once per process) when the environment names an endpoint; answers undefined
 * when it does not. The instrumentations patch `http`, `https` and `pg`, which this process has
 * loaded already (ES modules import them before any code runs): requiring them again through the
 * instrumentations' hook applies the patches to those same module objects.
 */
export async function startTracing(env: NodeJS.ProcessEnv, logger: Logger): Promise<Tracing | undefined> {
  const endpoint = tracesEndpoint(env);
  if (!endpoint) return undefined;
  if (started) return started;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { registerInstrumentations }, http, pg] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/instrumentation'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-pg'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'till' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint }))],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new http.HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED.test(req.url ?? ''),
        // Outgoing requests (webhook deliveries) only inside a span: never the SDK's own.
        requireParentforOutgoingSpans: true,
      }),
      // Statements only inside a request or a job: not the job queue's polling.
      new pg.PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  const require = createRequire(import.meta.url);
  for (const name of ['http', 'https', 'pg']) require(name);
  enableTracing();
  // Without any user or password the URL may carry.
  const { origin, pathname } = new URL(endpoint);
  logger.info({ endpoint: `${origin}${pathname}` }, 'OpenTelemetry traces are exported');
  const tracing = {
    endpoint,
    shutdown: () => {
      started = undefined;
      return provider.shutdown().catch((err: unknown) => logger.warn({ err }, 'traces: the last spans could not be exported'));
    },
  };
  started = tracing;
  return tracing;
}
