// Statements on PGlite in one protocol exchange each, prepared once. PGlite's own `query` sends a
// parameterized statement as six exchanges with its engine (parse, describe, bind, describe,
// execute, sync) and parses and plans it anew every time; measured on GET one plan, its engine
// took 65% of the server's CPU. Here a statement with parameters is parsed and described once
// under a name (its parameter types kept to serialize values as PGlite does, its result's columns
// to read its rows), then each call is one exchange: bind, execute, sync. (Describing the result
// on every run made the engine send, and PGlite's parser decode, every column's name again:
// measured on GET one plan at c50, 517 µs of the server's CPU a request, 463 µs without.) Rows
// are read as `query` reads them, by PGlite's own parsers (its parseResults copies every parser
// into a new object for each statement, which cost as much as the engine's work on a GET, so the
// reading is done here). A statement without parameters (DDL, BEGIN, COMMIT) is sent unnamed, in
// one exchange too. Every exchange holds PGlite's query lock, as `query` does. Measured, GET one
// plan at c50: 1,396 → 3,177 req/s.
import { type PGlite, parse, protocol, type Results, types } from '@electric-sql/pglite';

/** What the Kysely dialect and the tracing wrapper call (PGlite's own shape). */
export interface PgliteStatements {
  query: PGlite['query'];
  exec: PGlite['exec'];
  close: PGlite['close'];
  /** Several statements in one exchange, each answered on its own (see preparedStatements); untraced. */
  queryMany(statements: readonly Statement[]): Promise<Answer[]>;
}

/** A statement and its values. */
export interface Statement {
  text: string;
  values: unknown[];
}
/** One statement's answer in a batch: its result, or the error it alone failed with. */
export type Answer = { result: Results; error?: undefined } | { error: unknown; result?: undefined };

/** Prepared statements kept at most; the least recently used is closed past it. */
const MAX_PREPARED = 500;
/** Statements planned with their values every time (see preparedStatements). */
const ON_CONFLICT = /\bon\s+conflict\b/i;
/**
 * PostgreSQL's answer for a prepared statement whose result columns a schema change altered, or
 * that the engine no longer holds: either way it is prepared again, once.
 */
const PREPARE_AGAIN = /cached plan must not change result type|prepared statement ".*" does not exist/;

/** A result's columns, as PGlite's `query` answers them. */
type Fields = Results['fields'];

interface Prepared {
  name: string;
  paramTypes: number[];
  /** The columns its result has (none for a statement without rows), described once when prepared. */
  fields: Fields;
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

/** The columns a RowDescription among `messages` gives, if one does. */
function describedFields(messages: Message[]): Fields | undefined {
  const description = messages.find((m) => m.name === 'rowDescription') as InstanceType<typeof protocol.messages.RowDescriptionMessage> | undefined;
  return description?.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
}

/**
 * The first result of an exchange, as PGlite's `query` answers it: rows by column name, parsed by
 * type; the columns are `known` (a prepared statement's), or those a RowDescription in it gives.
 */
function resultOf(messages: Message[], parsers: Codecs['parsers'], known: Fields = []): Results {
  let fields = known;
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
 * An exchange's messages cut into each statement's: up to and with the ReadyForQuery its Sync
 * brought. After an error the engine sends one ReadyForQuery more; no statement's messages begin
 * with one, so those between two statements are skipped.
 */
function segments(messages: Message[]): Message[][] {
  const cut: Message[][] = [];
  let current: Message[] = [];
  for (const message of messages) {
    if (message.name === 'readyForQuery' && current.length === 0) continue;
    current.push(message);
    if (message.name === 'readyForQuery') {
      cut.push(current);
      current = [];
    }
  }
  return cut;
}

/**
 * `query` in one exchange (prepared once per text), `exec` and `close` as PGlite's. An INSERT with
 * `ON CONFLICT` is described once (for its parameter types) but always run as the unnamed
 * statement: PostgreSQL moves a prepared statement to a generic plan after five runs, and a generic
 * plan cannot match `ON CONFLICT (…) WHERE status = $3` to a partial unique index; unnamed, it is
 * planned with its values each time, as PGlite's `query` plans it.
 */
export function preparedStatements(pglite: PGlite, maxPrepared = MAX_PREPARED): PgliteStatements {
  const { serialize } = protocol;
  const codecs = pglite as unknown as Codecs;
  const prepared = new Map<string, Prepared>();
  const toClose: string[] = [];
  let counter = 0;

  const exchange = async (parts: Uint8Array[]) => (await pglite.execProtocol(concat(parts), { syncToFs: false })).messages;

  /** The prepared form of `text`, if any, now the most recently used (the cache drops the least recently used). */
  function cached(text: string): Prepared | undefined {
    const statement = prepared.get(text);
    if (statement) {
      prepared.delete(text);
      prepared.set(text, statement);
    }
    return statement;
  }

  /** Close messages for statements that fell out of the cache. */
  const closeMessages = (names: string[]) => names.map((name) => serialize.close({ type: 'S', name }));

  /**
   * Parses and describes `text` under a new name. What this makes fall out of the cache is closed
   * ahead of the next run (run, queryMany), never here: a batch being prepared may still run it.
   */
  async function prepare(text: string): Promise<Prepared> {
    const name = `till_${(++counter).toString(36)}`;
    const messages = await exchange([serialize.parse({ name, text, types: [] }), serialize.describe({ type: 'S', name }), serialize.sync()]);
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages), fields: describedFields(messages) ?? [] };
    prepared.set(text, statement);
    if (prepared.size > maxPrepared) {
      const [oldest] = prepared.keys();
      toClose.push(prepared.get(oldest!)!.name);
      prepared.delete(oldest!);
    }
    return statement;
  }

  /** The prepared statement a run of `text` binds by name: none for an `ON CONFLICT` (see preparedStatements). */
  const namedFor = (text: string, statement: Prepared | undefined) => (statement && !ON_CONFLICT.test(text) ? statement : undefined);

  /**
   * The messages that bind and run a prepared statement (its result's columns known); without one,
   * or for an `ON CONFLICT`, `text` as the unnamed statement (its values serialized by the prepared
   * one's types), its result described.
   */
  function runMessages(text: string, values: unknown[], statement: Prepared | undefined): Uint8Array[] {
    const paramTypes = statement?.paramTypes ?? [];
    const named = namedFor(text, statement);
    const texts = values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = codecs.serializers[paramTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const bind = serialize.bind({ statement: named?.name ?? '', values: texts });
    if (named) return [bind, serialize.execute({}), serialize.sync()];
    return [serialize.parse({ text, types: paramTypes }), bind, serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()];
  }

  /** A run's result from its messages: by the prepared statement's columns when it was bound by name. */
  const resultOfRun = (messages: Message[], text: string, statement: Prepared | undefined) =>
    resultOf(messages, codecs.parsers, namedFor(text, statement)?.fields);

  /** Binds and runs a statement in one exchange (see runMessages), after closing what fell out of the cache (never `statement`: it was just used). */
  async function run(text: string, values: unknown[], statement: Prepared | undefined): Promise<Results> {
    return resultOfRun(await exchange([...closeMessages(toClose.splice(0)), ...runMessages(text, values, statement)]), text, statement);
  }

  async function query(text: string, values: unknown[] = []): Promise<Results> {
    if (values.length === 0) return run(text, values, undefined);
    const known = cached(text);
    try {
      return await run(text, values, known ?? (await prepare(text)));
    } catch (error) {
      // A schema change altered what the statement answers: prepare it again, once.
      if (!known || !PREPARE_AGAIN.test(String((error as Error).message))) throw error;
      prepared.delete(text);
      toClose.push(known.name);
      return run(text, values, await prepare(text));
    }
  }

  /**
   * Statements prepared first (each once), then all run in one exchange, each with its own Sync:
   * the engine answers them one after another exactly as if sent apart, and an error is its
   * statement's alone. One whose prepared form went stale runs again on its own.
   */
  async function queryMany(statements: readonly Statement[]): Promise<Answer[]> {
    const answers: Array<Answer | undefined> = [];
    // What fell out of the cache before this batch is closed ahead of it (none of it runs here);
    // what falls out while the batch is prepared may still run in it, so it waits for a later exchange.
    const closing = toClose.splice(0);
    const parts = closeMessages(closing);
    const sent: Array<{ i: number; statement: Prepared | undefined }> = [];
    for (const [i, { text, values }] of statements.entries()) {
      try {
        const statement = values.length === 0 ? undefined : (cached(text) ?? (await prepare(text)));
        parts.push(...runMessages(text, values, statement));
        sent.push({ i, statement });
      } catch (error) {
        answers[i] = { error };
      }
    }
    if (sent.length === 0) toClose.unshift(...closing);
    const messages = sent.length ? (await pglite.execProtocol(concat(parts), { syncToFs: false, throwOnError: false })).messages : [];
    const answered = segments(messages);
    for (const [k, { i, statement }] of sent.entries()) {
      const own = answered[k];
      const failed = own?.find((m) => m.name === 'error');
      if (!own || !(failed || own.some((m) => m.name === 'commandComplete' || m.name === 'emptyQuery'))) continue;
      if (!failed) answers[i] = { result: resultOfRun(own, statements[i]!.text, statement) };
      else if (PREPARE_AGAIN.test(String((failed as unknown as Error).message)))
        answers[i] = await query(statements[i]!.text, statements[i]!.values).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
      else answers[i] = { error: failed };
    }
    return answers.map((answer) => answer ?? { error: new Error('PGlite did not answer this statement of its exchange') });
  }

  return {
    query: ((text: string, values?: unknown[]) => pglite.runExclusive(() => query(text, values))) as PGlite['query'],
    queryMany: (statements) => pglite.runExclusive(() => queryMany(statements)),
    exec: (text, options) => pglite.exec(text, options),
    close: () => pglite.close(),
  };
}
