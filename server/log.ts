import pino, { type Logger } from 'pino';
import { sourceStack } from './source-stack.js';

/**
 * Paths that are never written to a log: keys, client secrets and card data. Pino replaces
 * them before anything is serialized.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-client-secret"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-client-secret"]',
  '*.cardNumber',
  '*.cvc',
  '*.cvv',
  '*.card.cardNumber',
  '*.card.cvv',
  '*.clientSecret',
  '*.notificationSecret',
  '*.secret',
];

/** pino's error serializer, its stack shown at the places in the sources (source-stack.ts). */
function serializeError(err: Error): ReturnType<typeof pino.stdSerializers.err> {
  const serialized = pino.stdSerializers.err(err);
  if (typeof serialized.stack === 'string') serialized.stack = sourceStack(serialized.stack);
  return serialized;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  // ISO times: readable, and no 13-digit epoch number that a scan for card numbers would take for one.
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'till' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError },
    },
    destination,
  );
}
