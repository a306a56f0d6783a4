// A prepared statement's result columns, described once per connection on a PostgreSQL server.
//
// node-postgres sends Describe with every run of a prepared statement (`Query.prepare`), so the
// server sends every column's name and type again with each run, and node-postgres decodes them
// and builds the result's parsers anew (`Result.addFields`). A named statement's columns cannot
// change while it stays prepared on a connection: when a schema change would alter them, the
// server refuses the run with "cached plan must not change result type" (0A000), and the
// statement is prepared again under a new name (prepared-statements.ts). So its first run on a
// connection describes it, as before, and later runs there are bind, execute, sync, their rows
// read with the parsers the first run built. PGlite's statements do the same
// (pglite-statements.ts).
import pg from 'pg';

/** A statement's answer, as node-postgres gives it and Kysely's PostgreSQL driver reads it. */
export type QueryResult = { command: string; rowCount: number | null; rows: unknown[] };

/** What a result keeps of its statement's description (pg's `Result.addFields`). */
interface Description {
  fields: unknown[];
  parsers: unknown;
  emptyRow: unknown;
}

/** The parts of pg 8's `Query`, `Result` and `Connection` this relies on (lib/query.js, lib/result.js). */
interface QueryInternals {
  name?: string;
  text: string;
  values?: unknown[];
  portal: string;
  binary?: boolean;
  _accumulateRows?: boolean;
  _result: { fields: unknown[]; _parsers: unknown; _prebuiltEmptyResultObject: unknown };
  hasBeenParsed(connection: Connection): boolean;
  handleError(error: unknown, connection: Connection): void;
}
interface Connection {
  bind(config: object): void;
  execute(config: object): void;
  sync(): void;
  close(config: object): void;
}

const prepareValue = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils.prepareValue;

/** The description of each named statement a connection has run, by the statement's name. */
const described = new WeakMap<Connection, Map<string, Description>>();

/**
 * A run of a statement: a named one skips Describe when its connection has described it. Made
 * from the text, not the config, so pg does not copy the config for each run (its
 * `normalizeQueryConfig` copies every property descriptor).
 */
class DescribedOnce extends pg.Query {
  /** The connection this run described its statement on, when it did. */
  private describing?: Connection;

  constructor(config: pg.QueryConfig, callback: (error: Error | undefined, result: QueryResult) => void) {
    super(config.text, callback as never);
    const self = this as unknown as QueryInternals;
    self.name = config.name;
    self.values = config.values as unknown[] | undefined;
  }

  /** Called by `submit` for a run with values (pg's extended protocol). */
  prepare(connection: Connection): void {
    const self = this as unknown as QueryInternals;
    const known = self.name && self.hasBeenParsed(connection) ? described.get(connection)?.get(self.name) : undefined;
    if (!known) {
      if (self.name) this.describing = connection;
      (pg.Query.prototype as unknown as { prepare(connection: Connection): void }).prepare.call(this, connection);
      return;
    }
    Object.assign(self._result, { fields: known.fields, _parsers: known.parsers, _prebuiltEmptyResultObject: known.emptyRow });
    self._accumulateRows = true;
    try {
      connection.bind({ portal: self.portal, statement: self.name, values: self.values, binary: self.binary, valueMapper: prepareValue });
    } catch (error) {
      // As pg does when a value cannot be sent.
      connection.close({ type: 'S', name: self.name });
      connection.sync();
      this.handleError(error, connection);
      return;
    }
    connection.execute({ portal: self.portal });
    connection.sync();
  }

  /** The run succeeded: its statement's description (from its RowDescription, or none) is kept for the connection. */
  handleCommandComplete(message: unknown, connection: Connection): void {
    (pg.Query.prototype as unknown as { handleCommandComplete(m: unknown, c: Connection): void }).handleCommandComplete.call(this, message, connection);
    const self = this as unknown as QueryInternals;
    if (this.describing !== connection || !self.name) return;
    let byName = described.get(connection);
    if (!byName) described.set(connection, (byName = new Map<string, Description>()));
    byName.set(self.name, { fields: self._result.fields, parsers: self._result._parsers, emptyRow: self._result._prebuiltEmptyResultObject });
    this.describing = undefined;
  }

  /** A failed run forgets its statement's description: a stale statement is prepared again under a new name. */
  handleError(error: unknown, connection: Connection): void {
    const self = this as unknown as QueryInternals;
    if (self.name) described.get(connection)?.delete(self.name);
    (pg.Query.prototype as unknown as QueryInternals).handleError.call(this, error, connection);
  }
}

/** Runs `config` on `client`, a named statement described once per connection (see above). */
export function runStatementConfig(client: pg.ClientBase, config: pg.QueryConfig): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    client.query(new DescribedOnce(config, (error, result) => (error ? reject(error) : resolve(result))));
  });
}
