// The run's sandbox merchants (made by `createTestMerchant`), for what moves the sandbox clock or reads
// merchant-wide state: made on demand, at most one per unit running at once, each lent to one unit at
// a time. A target keeps a merchant's sandboxes to a few dozen, so a run makes a few, not one a scenario.
import type { SandboxMerchant } from './types.js';

type Made = Extract<SandboxMerchant, { ctx: unknown }>;

export class SandboxLender {
  private readonly free: Made[] = [];
  private readonly waiting: ((m: Made) => void)[] = [];
  private made = 0;
  private refused?: SandboxMerchant;

  /** `make` makes one more (or says why not); at most `max` are made. */
  constructor(
    private readonly make: () => Promise<SandboxMerchant>,
    private readonly max: number,
  ) {}

  /** A sandbox merchant no other unit holds: a free one, a new one, or the next one given back. */
  async take(): Promise<SandboxMerchant> {
    const free = this.free.pop();
    if (free) return free;
    if (this.refused) return this.refused;
    if (this.made < this.max) {
      this.made++;
      let m: SandboxMerchant;
      try {
        m = await this.make();
      } catch (error) {
        // A making that failed holds no place: without this, a target that answers the making
        // wrongly uses up every place and every later unit waits for a merchant nobody gives back.
        this.made--;
        throw error;
      }
      if ('ctx' in m) return m;
      this.made--;
      // None made at all: the target offers none, and every unit that asks is told why.
      if (this.made === 0) return (this.refused = m);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Gives a merchant back for the next unit. */
  give(m: SandboxMerchant): void {
    if (!('ctx' in m)) return;
    const next = this.waiting.shift();
    if (next) next(m);
    else this.free.push(m);
  }
}
