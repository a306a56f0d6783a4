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
