// The rules of delivery that need no network: the retry schedule and dead letter, which events a
// subscription selects, and the event types themselves (the contract's, generated).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RETRY_DELAYS_SECONDS, stateAfterAttempt } from '../../server/domain/webhooks/retry-schedule.js';
import { alwaysLive, EVENT_TYPES, goesToSessionUrl, subscribed, subscriptionProblem } from '../../server/domain/webhooks/event-types.js';

const t0 = new Date('2026-11-24T12:00:00.000Z');
const plus = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const fresh = { status: 'pending' as const, next_attempt_at: t0, automatic_attempts: 0 };

describe('the retry schedule', () => {
  it('is 1 min, 5 min, 30 min, 2 h, 8 h and 24 h after each failed automatic attempt, then dead-letter', () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([60, 300, 1800, 7200, 28800, 86400]);
    let delivery: Parameters<typeof stateAfterAttempt>[0] = fresh;
    const seen: Array<[string, string | null, number]> = [];
    for (let attempt = 1; attempt <= 7; attempt++) {
      const after = stateAfterAttempt(delivery, 'automatic', t0, false);
      seen.push([after.status, after.nextAttemptAt?.toISOString() ?? null, after.automatic]);
      delivery = { status: after.status, next_attempt_at: after.nextAttemptAt, automatic_attempts: after.automatic };
    }
    expect(seen).toEqual([
      ['failed', plus(60).toISOString(), 1],
      ['failed', plus(300).toISOString(), 2],
      ['failed', plus(1800).toISOString(), 3],
      ['failed', plus(7200).toISOString(), 4],
      ['failed', plus(28800).toISOString(), 5],
      ['failed', plus(86400).toISOString(), 6],
      ['dead_lettered', null, 7],
    ]);
  });

  it('ends at the first automatic success', () => {
    expect(stateAfterAttempt({ ...fresh, status: 'failed', automatic_attempts: 3 }, 'automatic', t0, true)).toEqual({
      status: 'succeeded',
      nextAttemptAt: null,
      automatic: 4,
    });
  });

  it('is not moved by a re-send: a failed one keeps the schedule and the count; a successful one ends it', () => {
    const waiting = { status: 'failed' as const, next_attempt_at: plus(1800), automatic_attempts: 2 };
    expect(stateAfterAttempt(waiting, 'resend', t0, false)).toEqual({ status: 'failed', nextAttemptAt: plus(1800), automatic: 2 });
    expect(stateAfterAttempt(waiting, 'resend', t0, true)).toEqual({ status: 'succeeded', nextAttemptAt: null, automatic: 2 });
    const dead = { status: 'dead_lettered' as const, next_attempt_at: null, automatic_attempts: 7 };
    expect(stateAfterAttempt(dead, 'resend', t0, false)).toEqual({ status: 'dead_lettered', nextAttemptAt: null, automatic: 7 });
  });
});

describe('event types', () => {
  it("are the keys of the Checkout contract's webhooks section, in its order", () => {
    const bundled = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../generated/checkout.openapi.json'), 'utf8'));
    expect([...EVENT_TYPES]).toEqual(Object.keys(bundled.webhooks));
  });

  it('a subscription item is an event type, a family of existing events, or *', () => {
    expect(subscriptionProblem('*')).toBeUndefined();
    expect(subscriptionProblem('payment.succeeded')).toBeUndefined();
    expect(subscriptionProblem('payment.*')).toBeUndefined();
    expect(subscriptionProblem('payment.exploded')).toBe('payment.exploded is not an event type');
    expect(subscriptionProblem('pay.*')).toBe('pay.* names no family of events');
  });

  it('a subscription selects by name, family or *, and always the test event', () => {
    expect(subscribed(['payment.*'], 'payment.refunded')).toBe(true);
    expect(subscribed(['payment.*'], 'invoice.paid')).toBe(false);
    expect(subscribed(['invoice.paid'], 'invoice.paid')).toBe(true);
    expect(subscribed(['invoice.paid'], 'invoice.paid_out')).toBe(false);
    expect(subscribed(['*'], 'subscription.renewed')).toBe(true);
    expect(subscribed([], 'webhook.test')).toBe(true);
  });

  it("a session's notification URL gets its outcome and its payments' events, not its creation", () => {
    expect(['checkout.session.completed', 'checkout.session.expired', 'payment.succeeded', 'dispute.created'].every(goesToSessionUrl)).toBe(true);
    expect(['checkout.session.created', 'invoice.paid', 'subscription.created'].some(goesToSessionUrl)).toBe(false);
    expect([alwaysLive('payout.paid'), alwaysLive('payment.succeeded')]).toEqual([true, false]);
  });
});
