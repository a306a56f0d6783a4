// How the runner schedules its work: units (one contract operation, or one scenario) run at most
// `concurrency` at a time, in the order given; exclusive units run after all the others, one at a time.

/** What the suite runs at once when not told (`--concurrency`): a full run on PGlite takes about half the time it takes one at a time. */
export const DEFAULT_CONCURRENCY = 8;

/** One piece of work for the pool. `run` records its own result and never rejects. */
export interface Unit {
  /** Runs alone, after every other unit has finished. */
  exclusive: boolean;
  run(): Promise<void>;
}

/** Runs `work` on each item, at most `limit` at a time, starting them in the order given. */
export async function inPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(Math.floor(limit) || 1, items.length)) }, worker));
}

/** Runs the units that may share the target at most `concurrency` at a time, then the exclusive ones alone. */
export async function runUnits(units: readonly Unit[], concurrency: number): Promise<void> {
  await inPool(
    units.filter((u) => !u.exclusive),
    concurrency,
    (u) => u.run(),
  );
  for (const u of units.filter((x) => x.exclusive)) await u.run();
}
