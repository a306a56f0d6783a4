// Prepared statements on a PostgreSQL server: parsed and analysed once per connection, not on
// every request.
//
// Kysely sends each statement as an unnamed one, so the server parses, analyses and plans it
// every time. For the hot statements of the API (a 40-column insert, a keyed select) that is most
// of PostgreSQL's work: measured, it halved PostgreSQL's CPU per created checkout session. Here a
// statement seen again gets a name, and node-postgres then sends its text once per connection
// (Parse) and afterwards only its values (Bind, Execute). Plans are PostgreSQL's to choose
// (`plan_cache_mode`): a custom plan for the first executions, a generic one when it costs no more.
import type pg from 'pg';

/** At most this many statements are named (per process); the rest run unnamed, as before. */
export const MAX_NAMED_STATEMENTS = 500;
/** Distinct unnamed statements remembered (to name one at its second sighting) before the count starts over. */
const MAX_SIGHTINGS = 10_000;

/**
 * Which statements run as named prepared statements: those with parameters (already sent with
 * the extended protocol, so one statement each), from their second sighting, up to
 * MAX_NAMED_STATEMENTS. A statement seen once (a bulk insert of N rows, say) takes no name.
 */
export class StatementNames {
  private readonly named = new Map<string, string>();
  private readonly sightings = new Map<string, number>();
  private generation = 0;

  constructor(private readonly maxNamed = MAX_NAMED_STATEMENTS) {}

  /** The node-postgres query config for a statement: with a name when it is worth preparing. */
  config(text: string, values: readonly unknown[]): pg.QueryConfig {
    const name = values.length > 0 ? this.nameOf(text) : undefined;
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

  private nameOf(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= this.maxNamed) return name;
    if (!this.sightings.has(text)) {
      if (this.sightings.size >= MAX_SIGHTINGS) this.sightings.clear();
      this.sightings.set(text, 1);
      return undefined;
    }
    this.sightings.delete(text);
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
