// The SignalR JSON hub protocol, as ASP.NET Core SignalR speaks it (dotnet/aspnetcore,
// src/SignalR/docs/specs/HubProtocol.md): JSON records, each ended by the record separator 0x1E.
// Pure: text in, messages out, so it is tested without a socket.

export const RECORD_SEPARATOR = '\u001e';

/** Message types of the hub protocol. */
export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
  Ack: 8,
  Sequence: 9,
} as const;

/** Versions of the JSON protocol this hub speaks. Version 2 adds only stateful reconnect's messages, which this hub never turns on. */
const JSON_VERSIONS = [1, 2];

/** An invocation from the client; without `invocationId` it is non-blocking and gets no completion. */
export interface Invocation {
  type: typeof MessageType.Invocation | typeof MessageType.StreamInvocation;
  invocationId?: string;
  target: string;
  arguments: unknown[];
}

/** What the server reads from a client after the handshake. */
export type ClientMessage = Invocation | { type: typeof MessageType.Ping } | { type: typeof MessageType.Close; error?: string } | { type: 'ignored' };

/** Every complete record in `buffered`, and the incomplete rest to keep for the next frame. */
export function splitRecords(buffered: string): { records: string[]; rest: string } {
  const parts = buffered.split(RECORD_SEPARATOR);
  const rest = parts.pop() ?? '';
  return { records: parts, rest };
}

/** One message as a record. */
export const record = (message: object): string => JSON.stringify(message) + RECORD_SEPARATOR;

/** A malformed message: the connection is closed with `message` as the close error. */
export class ProtocolError extends Error {}

function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProtocolError('A message is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtocolError('A message must be a JSON object.');
  return value as Record<string, unknown>;
}

/** The handshake answer to the client's first record: `{}` to go on, or `{error}` (then the server closes). */
export function answerHandshake(text: string): { ok: true } | { ok: false; error: string } {
  let request: Record<string, unknown>;
  try {
    request = parseObject(text);
  } catch {
    return { ok: false, error: 'The first message must be the handshake request {"protocol":"json","version":1}.' };
  }
  const { protocol, version } = request;
  if (typeof protocol !== 'string' || typeof version !== 'number') {
    return { ok: false, error: 'The handshake request needs `protocol` (a string) and `version` (a number).' };
  }
  if (protocol !== 'json') return { ok: false, error: `Requested protocol '${protocol}' is not available.` };
  if (!JSON_VERSIONS.includes(version)) return { ok: false, error: `The server does not support version ${version} of the 'json' protocol.` };
  return { ok: true };
}

const MAX_INVOCATION_ID = 128;

function parseInvocation(message: Record<string, unknown>, type: Invocation['type']): Invocation {
  const { invocationId, target, arguments: args } = message;
  if (invocationId !== undefined && (typeof invocationId !== 'string' || invocationId.length > MAX_INVOCATION_ID)) {
    throw new ProtocolError(`An invocationId must be a string of at most ${MAX_INVOCATION_ID} characters.`);
  }
  if (typeof target !== 'string') throw new ProtocolError('An invocation needs a `target` string.');
  if (!Array.isArray(args)) throw new ProtocolError('An invocation needs an `arguments` array.');
  return { type, target, arguments: args, ...(invocationId !== undefined ? { invocationId } : {}) };
}

/** A record after the handshake. Messages the hub has no use for (client results, acks, unknown types) are `ignored`. */
export function parseClientMessage(text: string): ClientMessage {
  const message = parseObject(text);
  switch (message.type) {
    case MessageType.Invocation:
    case MessageType.StreamInvocation:
      return parseInvocation(message, message.type);
    case MessageType.Ping:
      return { type: MessageType.Ping };
    case MessageType.Close:
      return typeof message.error === 'string' ? { type: MessageType.Close, error: message.error } : { type: MessageType.Close };
    default:
      if (typeof message.type !== 'number') throw new ProtocolError('A message needs a numeric `type`.');
      return { type: 'ignored' };
  }
}

/** The server's messages. */
export const messages = {
  ping: () => record({ type: MessageType.Ping }),
  invocation: (target: string, args: unknown[]) => record({ type: MessageType.Invocation, target, arguments: args }),
  completion: (invocationId: string, outcome: { result?: unknown } | { error: string }) => record({ type: MessageType.Completion, invocationId, ...outcome }),
  close: (error?: string, allowReconnect?: boolean) =>
    record({ type: MessageType.Close, ...(error !== undefined ? { error } : {}), ...(allowReconnect ? { allowReconnect } : {}) }),
  handshake: (error?: string) => record(error === undefined ? {} : { error }),
};
