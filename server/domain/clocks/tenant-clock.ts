// Each merchant's test mode has a clock of its own: the base clock plus how far the merchant
// advanced it. Live mode always reads the base clock.
import type { Db } from '../../db/database.js';
import { baseClock, type Clock, clockAhead } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE } from '../../shared/due-scope.js';
import type { Tenant } from '../../shared/tenant.js';
import type { SandboxOffsets } from './offset-cache.js';
import { findAdvancedClocks, findOffset } from './sandbox-clock.repository.js';

export { SandboxOffsets } from './offset-cache.js';
/** The channel on which the database announces a changed test-clock offset (payload: the merchant id). */
export const SANDBOX_CLOCK_CHANNEL = 'till_sandbox_clock';

export { findOffset as sandboxOffset, findOffsets as sandboxOffsets, holdClock, moveClock, releaseClock } from './sandbox-clock.repository.js';

/** The clock of a tenant: live mode reads the base clock; test mode, the merchant's sandbox clock (remembered in `offsets` when given). */
export async function tenantClock(db: Db, clock: Clock, tenant: Tenant, offsets?: SandboxOffsets): Promise<Clock> {
  const base = baseClock(clock);
  if (tenant.livemode) return base;
  return clockAhead(base, offsets ? await offsets.offset(db, tenant.merchantId) : await findOffset(db, tenant.merchantId));
}

/** Every scope due work runs in: the global one, then each merchant whose test clock was advanced. */
export async function dueScopes(db: Db): Promise<DueScope[]> {
  const advanced = await findAdvancedClocks(db);
  return [GLOBAL_SCOPE, ...advanced.map((c) => ({ kind: 'sandbox' as const, ...c }))];
}
