// Prepared statements on a PostgreSQL server: a statement that runs again is parsed, analysed and
// planned once per connection, not on every run.
//
// Kysely sends each statement as an unnamed one, so the server parses, analyses and plans it every
// time. For the hot statements of the API (a 40-column insert, a keyed select) that is most of
// PostgreSQL's work: measured, preparing the request path's precompiled queries halved
// PostgreSQL's CPU per created checkout session, and nearly all of the gain is the plan (with
// every run planned anew, little was left). A card payment's confirm runs some twenty other
// statements in its transaction, so every statement with values is prepared now, by its text,
// from its second run (as on PGlite, pglite-statements.ts), and PostgreSQL plans each as it plans
// any prepared statement: with its values for five runs, then with a generic plan when that is
// estimated to cost no more. One kind is left unnamed: an `INSERT … ON CONFLICT`, because a
// generic plan cannot tell which partial index a parameter selects (an `ON CONFLICT … WHERE
// is_owner = $1` finds no arbiter index at all and fails); it is planned with its values every
// run, unless it is a precompiled query's (precompiled.ts), whose conflict target is a full
// unique key (the Idempotency-Key claim).
import type pg from 'pg';

/** At most this many statements are named (per process); the rest run unnamed, as before. */
export const MAX_NAMED_STATEMENTS = 500;
/**
 * A statement outside precompiled queries is named at its second run: a text run once (an OData
 * list's filter of the moment, an `IN` list of one length) never takes a name, nor the server's
 * memory for its plan on every connection.
 */
const NAMED_AT_RUN = 2;
/** Texts counted towards NAMED_AT_RUN at most; past it the count starts again. */
const MAX_COUNTED = 5000;

/** Statements planned with their values every time, unless preparable (see above). */
const ON_CONFLICT = /\bon\s+conflict\b/i;

/** The SQL of every precompiled query's shapes (precompiled.ts): prepared, `ON CONFLICT` or not. */
const preparable = new Set<string>();

/** Runs `text` (a precompiled query's SQL) as a prepared statement from now on, even with an `ON CONFLICT`. */
export function markPreparable(text: string): void {
  preparable.add(text);
}

/**
 * Which statements run as named prepared statements: a precompiled query's with values, and any
 * other with values but an `ON CONFLICT` from its second run, up to MAX_NAMED_STATEMENTS.
 * node-postgres then sends its text once per connection (Parse) and afterwards only its values
 * (Bind, Execute).
 */
export class StatementNames {
  private readonly named = new Map<string, string>();
  /** Runs so far of the statements not named yet (see NAMED_AT_RUN). */
  private readonly runs = new Map<string, number>();
  private generation = 0;

  constructor(private readonly maxNamed = MAX_NAMED_STATEMENTS) {}

  /** The node-postgres query config for a statement: with a name when it is prepared. */
  config(text: string, values: readonly unknown[]): pg.QueryConfig {
    const name = values.length > 0 && (preparable.has(text) || (!ON_CONFLICT.test(text) && this.ranBefore(text))) ? this.nameOf(text) : undefined;
    return name ? { name, text, values: values as unknown[] } : { text, values: values as unknown[] };
  }

  /**
   * After `error`, whether the statement's prepared form went stale: a schema change altered its
   * result's columns (another process migrated), or the server forgot it. Every statement is then
   * named anew, so each is prepared again on its next run.
   */
  renewAfter(error: unknown, config: pg.QueryConfig): boolean {
    if (!config.name || !isStale(error)) return false;
    if (this.named.get(config.text) === config.name) {
      this.generation += 1;
      this.named.clear();
    }
    return true;
  }

  /** Whether `text` has a name, or now reaches its NAMED_AT_RUN-th run. */
  private ranBefore(text: string): boolean {
    if (this.named.has(text)) return true;
    if (this.runs.size >= MAX_COUNTED) this.runs.clear();
    const runs = (this.runs.get(text) ?? 0) + 1;
    if (runs < NAMED_AT_RUN) this.runs.set(text, runs);
    else this.runs.delete(text);
    return runs >= NAMED_AT_RUN;
  }

  private nameOf(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= this.maxNamed) return name;
    const fresh = `till_${this.generation}_${this.named.size}`;
    this.named.set(text, fresh);
    return fresh;
  }
}

/** "cached plan must not change result type" (0A000), or "prepared statement … does not exist" (26000). */
function isStale(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === '26000' || (code === '0A000' && /cached plan must not change result type/.test(message ?? ''));
}
