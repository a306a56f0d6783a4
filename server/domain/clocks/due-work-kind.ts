import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { DueScope } from '../../shared/due-scope.js';

/**
 * One kind of work that falls due with time (a session's expiry, a hold's lapse, a webhook retry):
 * what it does, and when its next item falls due. The job queue runs every kind on its schedule in
 * real time; a merchant's sandbox clock runs them all, in order, at each instant it stops at.
 */
export interface DueWork {
  name: string;
  /** Does what is due by the scope's clock (`clock` is the base clock); returns how many items it handled. */
  run(db: Kysely<Database>, clock: Clock, scope: DueScope): Promise<number>;
  /** When the scope's next item falls due, strictly after `after`; null when nothing waits. */
  next(db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null>;
  /**
   * True when its work changes nothing another kind reads (webhook attempts: only deliveries and
   * their log), so after it ran the sandbox clock asks no other kind again when its next item falls due.
   */
  selfContained?: boolean;
  /** True when one run handles everything that is due (it repeats its own batches): the sandbox clock then runs it once per stop. */
  drains?: boolean;
  /**
   * True when it makes what fell due since the clock's previous stop at the times it fell due (the
   * scope's `since`): its next time makes no stop, it runs at every stop. For work whose
   * items are many and at their own instants (webhook retries), which nothing else reads in between.
   */
  catchesUp?: boolean;
}
