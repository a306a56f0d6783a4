// The runner's scheduling: scenarios run a few at a time yet report in catalogue order, the long ones
// start first, an exclusive scenario runs with nothing else, a failing one does not stop the others, and sandbox merchants are
// lent to one scenario at a time (at most one per scenario running at once).
import { describe, expect, it } from 'vitest';
import { inPool, runUnits } from '../pool.js';
import { chosenScenarios, scenarioUnits, type ScenarioHost } from '../run-scenarios.js';
import { SandboxLender } from '../sandboxes.js';
import type { ConformanceContext, SandboxKind, SandboxMerchant, Scenario, ScenarioResult } from '../types.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records which scenarios are running at each moment, and the order they started in. */
class Tracker {
  running = new Set<string>();
  started: string[] = [];
  maxAtOnce = 0;
  /** For each exclusive scenario, what else was running while it ran. */
  alongside = new Map<string, string[]>();

  scenario(id: string, ms: number, extra: Partial<Scenario> = {}, fail?: string): Scenario {
    return {
      id,
      title: id,
      source: 'test',
      requires: [],
      ...extra,
      run: async () => {
        this.started.push(id);
        this.running.add(id);
        this.maxAtOnce = Math.max(this.maxAtOnce, this.running.size);
        const others = () => [...this.running].filter((x) => x !== id);
        if (extra.exclusive) this.alongside.set(id, others());
        await sleep(ms);
        if (extra.exclusive) this.alongside.set(id, [...(this.alongside.get(id) ?? []), ...others()]);
        this.running.delete(id);
        if (fail) throw new Error(fail);
      },
    };
  }
}

/** A host whose units get a context acting for the merchant given; sandbox merchants come from `lender` (of their kind, when given per kind). */
function host(lenders?: SandboxLender | Record<SandboxKind, SandboxLender>): ScenarioHost {
  const lenderOf = (kind: SandboxKind) => (lenders instanceof SandboxLender ? lenders : lenders?.[kind]);
  const ctx = (): ConformanceContext => {
    let lease: { lender?: SandboxLender; merchant: Promise<SandboxMerchant> } | undefined;
    return {
      options: { target: 'server' },
      sandboxMerchant(kind: SandboxKind = 'clock') {
        const lender = lenderOf(kind);
        lease ??= { lender, merchant: lender ? lender.take() : Promise.resolve({ unavailable: 'none here' }) };
        return lease.merchant;
      },
      release: async () => lease && lease.lender?.give(await lease.merchant),
    } as unknown as ConformanceContext;
  };
  return {
    options: { baseUrl: 'http://test', secretKey: 'sk_test_x', target: 'server' },
    isImplemented: async () => true,
    async unit(work) {
      const c = ctx();
      try {
        return await work(c);
      } finally {
        await (c as unknown as { release(): Promise<void> }).release();
      }
    },
  };
}

/** Runs the scenarios as the runner does; answers their results and the ids in finishing order. */
async function run(scenarios: Scenario[], concurrency: number, h = host()): Promise<{ results: ScenarioResult[]; finished: string[] }> {
  const results: ScenarioResult[] = [];
  const finished: string[] = [];
  const { long, others } = scenarioUnits(h, chosenScenarios(h, scenarios), results, {
    emit: (e) => finished.push(e.result.id),
    elapsed: () => 0,
  });
  await runUnits([...long, ...others], concurrency);
  return { results, finished };
}

describe('the conformance pool', () => {
  it('runs at most `limit` at once and starts items in the order given', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await inPool([5, 40, 5, 5, 30, 5], 3, async (ms) => {
      started.push(ms);
      most = Math.max(most, ++running);
      await sleep(ms);
      running--;
    });
    expect(started).toEqual([5, 40, 5, 5, 30, 5]);
    expect(most).toBe(3);
  });

  it('reports in catalogue order whatever the finishing order, and runs them at once', async () => {
    const t = new Tracker();
    const scenarios = [t.scenario('a', 60), t.scenario('b', 5), t.scenario('c', 30), t.scenario('d', 1)];
    const { results, finished } = await run(scenarios, 4);
    expect(results.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(finished).not.toEqual(['a', 'b', 'c', 'd']);
    expect(t.maxAtOnce).toBe(4);
  });

  it('runs an exclusive scenario alone, after the others, even when it comes first in the catalogue', async () => {
    const t = new Tracker();
    const scenarios = [
      t.scenario('burst', 20, { exclusive: true }),
      ...Array.from({ length: 6 }, (_, i) => t.scenario(`s${i}`, 10 + i * 5)),
      t.scenario('lookups', 20, { exclusive: true }),
    ];
    const { results, finished } = await run(scenarios, 4);
    expect(t.alongside.get('burst')).toEqual([]);
    expect(t.alongside.get('lookups')).toEqual([]);
    expect(finished.slice(-2)).toEqual(['burst', 'lookups']);
    expect(results.map((r) => r.id)).toEqual(scenarios.map((s) => s.id));
  });

  it('starts the long scenarios first, longest first (a clock scenario counts as long), then the rest in catalogue order', async () => {
    const t = new Tracker();
    const scenarios = [
      t.scenario('a', 1),
      t.scenario('clock', 1, { needsClock: true }),
      t.scenario('b', 1),
      t.scenario('timeout', 1, { expectedMs: 30_000 }),
      t.scenario('burst', 1, { expectedMs: 12_000 }),
    ];
    const { results } = await run(scenarios, 1, host(new SandboxLender(async () => ({ id: 1, ctx: {} as ConformanceContext }), 1)));
    expect(t.started).toEqual(['timeout', 'burst', 'clock', 'a', 'b']);
    expect(results.map((r) => r.id)).toEqual(['a', 'clock', 'b', 'timeout', 'burst']);
  });

  it('a failing scenario fails alone: the others run and pass', async () => {
    const t = new Tracker();
    const scenarios = [t.scenario('a', 5), t.scenario('broken', 1, {}, 'expected 200, got 500'), t.scenario('b', 20), t.scenario('c', 5)];
    const { results } = await run(scenarios, 2);
    expect(results.map((r) => [r.id, r.outcome])).toEqual([
      ['a', 'passed'],
      ['broken', 'failed'],
      ['b', 'passed'],
      ['c', 'passed'],
    ]);
    expect(results[1]!.note).toBe('expected 200, got 500');
  });

  it('lends each clock scenario a sandbox merchant no other running scenario holds, making no more than run at once', async () => {
    let made = 0;
    const holders = new Map<number, string>();
    const lender = new SandboxLender(async () => {
      const id = ++made;
      return { id, ctx: { id } as unknown as ConformanceContext };
    }, 3);
    const clockScenario = (id: string, ms: number): Scenario => ({
      id,
      title: id,
      source: 'test',
      requires: [],
      needsClock: true,
      run: async (ctx) => {
        const merchant = (ctx as unknown as { id: number }).id;
        expect(holders.get(merchant)).toBeUndefined();
        holders.set(merchant, id);
        await sleep(ms);
        holders.delete(merchant);
      },
    });
    const { results } = await run(
      Array.from({ length: 9 }, (_, i) => clockScenario(`clock${i}`, 5 + (i % 3) * 10)),
      3,
      host(lender),
    );
    expect(results.every((r) => r.outcome === 'passed' && r.merchant === 'sandbox')).toBe(true);
    expect(made).toBe(3);
  });

  it('a scenario that reads merchant-wide state without moving the clock never gets a merchant a clock scenario had', async () => {
    let made = 0;
    const kindOf = new Map<number, SandboxKind>();
    const lender = (kind: SandboxKind) =>
      new SandboxLender(async () => {
        const id = ++made;
        kindOf.set(id, kind);
        return { id, ctx: { id } as unknown as ConformanceContext };
      }, 2);
    const ran: [string, SandboxKind][] = [];
    const scenario = (id: string, extra: Partial<Scenario>): Scenario => ({
      id,
      title: id,
      source: 'test',
      requires: [],
      ...extra,
      run: async (ctx) => {
        ran.push([id, kindOf.get((ctx as unknown as { id: number }).id)!]);
        await sleep(5);
      },
    });
    const scenarios = Array.from({ length: 6 }, (_, i) => [scenario(`clock${i}`, { needsClock: true }), scenario(`balance${i}`, { ownMerchant: true })]).flat();
    await run(scenarios, 3, host({ clock: lender('clock'), still: lender('still') }));
    expect(ran).toHaveLength(12);
    for (const [id, kind] of ran) expect([id, kind]).toEqual([id, id.startsWith('clock') ? 'clock' : 'still']);
  });

  it('a making that throws holds no place: every clock scenario ends (failed), none waits for ever', async () => {
    let tries = 0;
    const lender = new SandboxLender(async () => {
      tries++;
      throw new Error('createTestMerchant answered 200, not 201');
    }, 2);
    const clock = (id: string): Scenario => ({ id, title: id, source: 'test', requires: [], needsClock: true, run: async () => {} });
    const { results } = await run(['a', 'b', 'c', 'd', 'e'].map(clock), 2, host(lender));
    expect(results.map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    expect(tries).toBe(5);
  });

  it('a clock scenario is pending, naming why, when no sandbox merchant can be made', async () => {
    const lender = new SandboxLender(async () => ({ unavailable: 'createTestMerchant answered 409' }), 2);
    const { results } = await run([{ id: 'clock', title: 'clock', source: 'test', requires: [], needsClock: true, run: async () => {} }], 2, host(lender));
    expect(results[0]).toMatchObject({ outcome: 'pending', note: expect.stringContaining('createTestMerchant answered 409') });
  });
});
