// Statements on PGlite in one protocol exchange each, prepared once. PGlite's own `query` sends a
// parameterized statement as six exchanges with its engine (parse, describe, bind, describe,
// execute, sync) and parses and plans it anew every time; measured on GET one plan, its engine
// took 65% of the server's CPU. Here a statement with parameters is parsed and described once
// under a name (its parameter types kept to serialize values as PGlite does), then each call is
// one exchange: bind, describe, execute, sync. Rows are read as `query` reads them, by PGlite's
// own parsers (its parseResults copies every parser into a new object for each statement, which
// cost as much as the engine's work on a GET, so the reading is done here). A statement without
// parameters (DDL, BEGIN, COMMIT) is sent unnamed, in one exchange too. Every exchange holds
// PGlite's query lock, as `query` does. Measured, GET one plan at c50: 1,396 → 3,177 req/s.
import { type PGlite, parse, protocol, type Results, types } from '@electric-sql/pglite';

/** What the Kysely dialect and the tracing wrapper call (PGlite's own shape). */
export interface PgliteStatements {
  query: PGlite['query'];
  exec: PGlite['exec'];
  close: PGlite['close'];
}

/** Prepared statements kept at most; the oldest is closed past it. */
const MAX_PREPARED = 500;
/** Statements planned with their values every time (see preparedStatements). */
const ON_CONFLICT = /\bon\s+conflict\b/i;
/** PostgreSQL's answer for a prepared statement whose result columns a schema change altered. */
const CACHED_PLAN_CHANGED = /cached plan must not change result type/;

interface Prepared {
  name: string;
  paramTypes: number[];
}

type Serializer = (value: unknown) => string;
type Parser = (text: string, typeId: number) => unknown;
/** PGlite's parsers and serializers by type oid (public at run time, not in its types). */
interface Codecs {
  parsers: Record<number, Parser | undefined>;
  serializers: Record<number, Serializer | undefined>;
}
type Message = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];

/** Rows a command changed, from its tag (`INSERT 0 3`, `UPDATE 2`), as PGlite counts them. */
function affectedBy(tag: string): number {
  const [command, a, b] = tag.split(' ');
  if (command === 'INSERT') return parseInt(b!, 10);
  return command === 'UPDATE' || command === 'DELETE' || command === 'COPY' || command === 'MERGE' ? parseInt(a!, 10) : 0;
}

/** The first result of an exchange, as PGlite's `query` answers it: rows by column name, parsed by type. */
function resultOf(messages: Message[], parsers: Codecs['parsers']): Results {
  let fields: Array<{ name: string; dataTypeID: number }> = [];
  const rows: Record<string, unknown>[] = [];
  for (const message of messages) {
    if (message.name === 'rowDescription')
      fields = (message as InstanceType<typeof protocol.messages.RowDescriptionMessage>).fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
    else if (message.name === 'dataRow') {
      const row: Record<string, unknown> = {};
      (message as InstanceType<typeof protocol.messages.DataRowMessage>).fields.forEach((value, i) => {
        const { name, dataTypeID } = fields[i]!;
        const parser = parsers[dataTypeID] ?? (types.parsers as Codecs['parsers'])[dataTypeID];
        row[name] = value === null ? null : parser ? parser(value, dataTypeID) : value;
      });
      rows.push(row);
    } else if (message.name === 'commandComplete')
      return { rows, fields, affectedRows: affectedBy((message as InstanceType<typeof protocol.messages.CommandCompleteMessage>).text) };
  }
  return { rows: [], fields: [], affectedRows: 0 };
}

const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/**
 * `query` in one exchange (prepared once per text), `exec` and `close` as PGlite's. An INSERT with
 * `ON CONFLICT` is described once (for its parameter types) but always run as the unnamed
 * statement: PostgreSQL moves a prepared statement to a generic plan after five runs, and a generic
 * plan cannot match `ON CONFLICT (…) WHERE status = $3` to a partial unique index; unnamed, it is
 * planned with its values each time, as PGlite's `query` plans it.
 */
export function preparedStatements(pglite: PGlite): PgliteStatements {
  const { serialize } = protocol;
  const codecs = pglite as unknown as Codecs;
  const prepared = new Map<string, Prepared>();
  const toClose: string[] = [];
  let counter = 0;

  const exchange = async (parts: Uint8Array[]) => (await pglite.execProtocol(concat(parts), { syncToFs: false })).messages;

  /** Parses and describes `text` under a new name (closing what fell out of the cache). */
  async function prepare(text: string): Promise<Prepared> {
    const name = `till_${(++counter).toString(36)}`;
    const closing = toClose.splice(0).map((old) => serialize.close({ type: 'S', name: old }));
    const messages = await exchange([...closing, serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()]);
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    prepared.set(text, statement);
    if (prepared.size > MAX_PREPARED) {
      const [oldest] = prepared.keys();
      toClose.push(prepared.get(oldest!)!.name);
      prepared.delete(oldest!);
    }
    return statement;
  }

  /**
   * Binds and runs a prepared statement in one exchange; without one, or for an `ON CONFLICT`,
   * `text` as the unnamed statement (its values serialized by the prepared one's types).
   */
  async function run(text: string, values: unknown[], statement: Prepared | undefined): Promise<Results> {
    const paramTypes = statement?.paramTypes ?? [];
    const named = statement && !ON_CONFLICT.test(text) ? statement.name : undefined;
    const texts = values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = codecs.serializers[paramTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const head = named ? [] : [serialize.parse({ text, types: paramTypes })];
    const messages = await exchange([
      ...head,
      serialize.bind({ statement: named ?? '', values: texts }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    return resultOf(messages, codecs.parsers);
  }

  async function query(text: string, values: unknown[] = []): Promise<Results> {
    if (values.length === 0) return run(text, values, undefined);
    const cached = prepared.get(text);
    try {
      return await run(text, values, cached ?? (await prepare(text)));
    } catch (error) {
      // A schema change altered what the statement answers: prepare it again, once.
      if (!cached || !CACHED_PLAN_CHANGED.test(String((error as Error).message))) throw error;
      prepared.delete(text);
      toClose.push(cached.name);
      return run(text, values, await prepare(text));
    }
  }

  return {
    query: ((text: string, values?: unknown[]) => pglite.runExclusive(() => query(text, values))) as PGlite['query'],
    exec: (text, options) => pglite.exec(text, options),
    close: () => pglite.close(),
  };
}
