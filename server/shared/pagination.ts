/**
 * Newest-first keyset pages over integer ids: `startingAfter` is the last id the caller holds,
 * the page holds the next older items, and `hasMore` says whether more follow. One extra row is
 * fetched to know.
 */
export interface PageRequest {
  limit: number;
  startingAfter?: number | undefined;
}

export function toPage<T>(rows: T[], limit: number): { data: T[]; hasMore: boolean } {
  return { data: rows.slice(0, limit), hasMore: rows.length > limit };
}
