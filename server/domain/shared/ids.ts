/** A path id as the positive integer the contract declares, or undefined when it is not one. */
export function intId(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
