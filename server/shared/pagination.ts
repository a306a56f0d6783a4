/**
 * Newest-first keyset pages over integer ids: `startingAfter` is the last id the caller holds,
 * the page holds the next older items, and `hasMore` says whether more follow. One extra row is
 * fetched to know.
 */
export interface PageRequest {
  limit: number;
  startingAfter?: number | undefined;
}

/** One page of a list, newest first. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

/** The page from `limit + 1` fetched rows. */
export function toPage<T>(rows: T[], limit: number): Page<T> {
  return { data: rows.slice(0, limit), hasMore: rows.length > limit };
}
