import type { AuthContext } from '../http/context.js';

/** The merchant a keyed operation acts for (authentication guarantees one). */
export function merchantOf(auth: AuthContext): number {
  if (auth.merchantId === null) throw new Error('This operation needs an authenticated merchant.');
  return auth.merchantId;
}
