// SQL spans for the embedded database (PGlite), which has no `pg` for the OpenTelemetry pg
// instrumentation to hook: one span per statement, under the request's or job's span (none
// outside one), with the statement's text and never its parameters. On PostgreSQL the pg
// instrumentation (server/tracing.ts) makes the same spans.
import type { PGlite } from '@electric-sql/pglite';
import type { PgliteStatements } from './pglite-statements.js';
import { inSpan, SpanKind, tracingEnabled } from '../shared/tracing.js';

/** Longest statement text a span carries. */
const MAX_STATEMENT = 2048;

/** A span name for a statement: its first keyword (`SELECT`, `INSERT`, `WITH`…). */
const operationOf = (text: string): string => /^[A-Za-z]+/.exec(text)?.[0].toUpperCase() ?? 'SQL';

/** Runs one statement (or several, for `exec`) of `text` in a span of its own when tracing is on. */
export function sqlSpan<T>(text: string, run: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return run();
  const trimmed = text.trim();
  const statement = trimmed.length > MAX_STATEMENT ? `${trimmed.slice(0, MAX_STATEMENT)}…` : trimmed;
  return inSpan(
    operationOf(trimmed),
    {
      kind: SpanKind.CLIENT,
      requireParent: true,
      attributes: { 'db.system': 'postgresql', 'db.system.name': 'postgresql', 'db.statement': statement, 'db.query.text': statement },
    },
    run,
  );
}

/** What Kysely's PGlite dialect and the plain SQL runner call of PGlite, each statement in a span when tracing is on. */
export function tracedPglite(statements: PgliteStatements): PgliteStatements {
  if (!tracingEnabled()) return statements;
  return {
    query: ((text: string, values?: unknown[], options?: unknown) => sqlSpan(text, () => statements.query(text, values, options as never))) as PGlite['query'],
    exec: (text, options) => sqlSpan(text, () => statements.exec(text, options)),
    close: () => statements.close(),
    // Its statements' spans are made by whoever queued them (pglite-dialect.ts).
    queryMany: (many) => statements.queryMany(many),
  };
}
