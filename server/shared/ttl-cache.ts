/**
 * Values remembered for `ttlMs`, at most `max` of them (the oldest entry goes first). For what
 * every request reads and seldom changes: API keys, test-clock offsets.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  /** The remembered value, unless it is older than the TTL. */
  get(key: K, now = Date.now()): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > now ? hit.value : undefined;
  }

  set(key: K, value: V, now = Date.now()): void {
    if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: now + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
