// Spans of Till's own making, through the OpenTelemetry API alone (server/tracing.ts loads the SDK,
// and only when OTEL_EXPORTER_OTLP_ENDPOINT is set). Until it does, every function here answers
// at once without touching the API: tracing off costs a boolean test.
import { type Attributes, type Context, context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

export { SpanKind };

let enabled = false;

/** Whether spans are exported (the SDK is started). */
export const tracingEnabled = (): boolean => enabled;

/** Called once the SDK is started (server/tracing.ts); spans are made from then on. */
export function enableTracing(): void {
  enabled = true;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The active span as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), or null when none is (or tracing is off). */
export function activeTraceparent(): string | null {
  if (!enabled) return null;
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !trace.isSpanContextValid(span)) return null;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The active trace's id, or undefined when there is none (or tracing is off): what log lines carry as `trace_id`. */
export function activeTraceId(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? span.traceId : undefined;
}

/** A context whose parent is the span a stored `traceparent` names; the root context for none or a malformed one. */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!m) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true });
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent (default: the active context). */
  parent?: Context;
  /** Only under an active span: work outside any request or job makes none. */
  requireParent?: boolean;
}

/**
 * Runs `fn` in a new span (the active one while it runs), ended when it settles. A failure marks
 * the span as an error with the error's name only: messages may hold what a span must not.
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!enabled) return fn(undefined);
  const parent = options.parent ?? context.active();
  if (options.requireParent && !trace.getSpan(parent)) return fn(undefined);
  return trace.getTracer('till').startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
      throw err;
    } finally {
      span.end();
    }
  });
}
