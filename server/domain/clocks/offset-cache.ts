import type { Db } from '../../db/database.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import { findOffset } from './sandbox-clock.repository.js';

/** How long an offset is trusted when no change notice arrives (the LISTEN connection was down). */
const TRUST_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Each merchant's test-clock offset, remembered by one app so that a request does not read it
 * from the database every time. An advance forgets it at once in the process that made it, and
 * in every other process when the change's notice (`till_sandbox_clock`, sent by the database on
 * commit) arrives; without a notice an offset is trusted for 30 seconds at most.
 */
export class SandboxOffsets {
  private readonly known = new TtlCache<number, number>(TRUST_MS, MAX_ENTRIES);

  async offset(db: Db, merchantId: number): Promise<number> {
    const hit = this.known.get(merchantId);
    if (hit !== undefined) return hit;
    const offset = await findOffset(db, merchantId);
    this.known.set(merchantId, offset);
    return offset;
  }

  forget(merchantId: number): void {
    this.known.delete(merchantId);
  }

  forgetAll(): void {
    this.known.clear();
  }
}
