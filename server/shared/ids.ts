import { randomToken } from './crypto.js';

/** A path id as the positive integer the contract declares, or undefined when it is not one. */
export function intId(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A human-readable reference (`PAY-7Q4K2M9XRT`): the prefix and 10 random upper-case characters. */
export const newReference = (prefix: string): string => `${prefix}-${randomToken(10).toUpperCase()}`;
