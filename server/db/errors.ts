/** The SQLSTATE of a database error (pg and PGlite both expose `code`), or undefined. */
export function sqlState(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : undefined;
}

/** Whether `error` is a unique violation, of the named constraint or index when one is given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== '23505') return false;
  if (constraint === undefined) return true;
  const e = error as { constraint?: string; message?: string };
  return e.constraint === constraint || (e.message ?? '').includes(constraint);
}

/** Messages of node-postgres and PGlite when the connection itself is gone (they carry no SQLSTATE). */
const LOST_CONNECTION =
  /Connection terminated|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect|PGlite is closed/i;
/** Node's socket errors when the server cannot be reached. */
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * Whether `error` says the database could not be reached or dropped the connection (rather than
 * refusing a statement): SQLSTATE class 08 (connection exception), 57P01 to 57P03 (the server
 * shut the session down or is starting), 53300 (too many connections), or a lost socket. The
 * transaction it was in rolled back.
 */
export function isConnectionFailure(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== undefined)
    return state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300' || SOCKET_ERRORS.has(state);
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && LOST_CONNECTION.test(message);
}

/** Whether PostgreSQL ended the transaction to break a deadlock (40P01): it rolled back, and may be run again. */
export const isDeadlock = (error: unknown): boolean => sqlState(error) === '40P01';

/**
 * Runs `transaction` (a whole transaction: it begins and commits inside) again when PostgreSQL
 * chose it to break a deadlock, up to `attempts` times in all. For a change whose rows other work
 * locks in an order of its own (a configuration deleted while its deliveries are recorded).
 */
export async function retryingDeadlocks<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (!isDeadlock(error) || attempt >= attempts) throw error;
    }
  }
}
