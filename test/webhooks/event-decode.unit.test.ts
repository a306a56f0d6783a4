// Events store domain records as JSON; reading one back turns its times into Dates again, and
// nothing else: what merchants and payers wrote comes back exactly as it went in.
import { describe, expect, it } from 'vitest';
import { decodeSubject, toEventRecord } from '../../server/domain/events/event.repository.js';

/** A record through the jsonb column: Dates become ISO text, as JSON.stringify writes them. */
const stored = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

describe('decodeSubject', () => {
  it('revives the times of a record (columns named …_at, …_date, …_start, …_end), nested ones too', () => {
    const createdAt = new Date('2026-11-24T10:00:00.000Z');
    const periodEnd = new Date('2026-12-24T10:00:00.000Z');
    const subject = decodeSubject(
      stored({
        kind: 'subscription',
        subscription: { id: 9, created_at: createdAt, current_period_end: periodEnd, trial_start: null, plan: { created_at: createdAt } },
        change: { reason: null },
      }),
    );
    expect(subject).toEqual({
      kind: 'subscription',
      subscription: { id: 9, created_at: createdAt, current_period_end: periodEnd, trial_start: null, plan: { created_at: createdAt } },
      change: { reason: null },
    });
    expect((subject as any).subscription.current_period_end).toBeInstanceOf(Date);
  });

  it('leaves text that only looks like a time alone when its key is not a time column', () => {
    const subject = decodeSubject(stored({ kind: 'payment', payment: { id: 1, description: '2026-11-24T10:00:00.000Z', paid_at: 'soon' }, card: null })) as any;
    expect(subject.payment.description).toBe('2026-11-24T10:00:00.000Z');
    expect(subject.payment.paid_at).toBe('soon');
  });

  it('never looks into metadata or line items, whatever their keys', () => {
    const metadata = { shipped_at: '2026-11-24T10:00:00.000Z', order: '42' };
    const lineItems = [{ name: 'Seat', delivered_at: '2026-11-24T10:00:00.000Z' }];
    const subject = decodeSubject(
      stored({ kind: 'checkout_session', session: { id: 'cs_1', created_at: '2026-11-24T10:00:00.000Z', metadata, line_items: lineItems }, payment: null }),
    ) as any;
    expect(subject.session.created_at).toBeInstanceOf(Date);
    expect(subject.session.metadata).toEqual(metadata);
    expect(subject.session.line_items).toEqual(lineItems);
  });

  it('keeps a key named __proto__ as a key, its value revived like any other', () => {
    const subject = decodeSubject(
      JSON.parse('{"kind":"payment","payment":{"__proto__":{"refunded_at":"2026-11-24T10:00:00.000Z"},"id":1},"card":null}'),
    ) as any;
    expect(Object.keys(subject.payment)).toEqual(['__proto__', 'id']);
    expect(Object.getPrototypeOf(subject.payment)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(subject.payment, '__proto__')?.value.refunded_at).toEqual(new Date('2026-11-24T10:00:00.000Z'));
    expect(JSON.parse(JSON.stringify(subject.payment))).toEqual(JSON.parse('{"__proto__":{"refunded_at":"2026-11-24T10:00:00.000Z"},"id":1}'));
  });

  it('passes an event written before events held records on as its payload, untouched', () => {
    const payload = { object: 'payment', id: 5, created: 1795000000, paid_at: '2026-11-24T10:00:00.000Z' };
    expect(decodeSubject(stored(payload))).toEqual({ kind: 'payload', payload });
  });
});

describe('toEventRecord', () => {
  it('reads an outbox row as an event record with its subject decoded', () => {
    const createdAt = new Date('2026-11-24T10:00:00.000Z');
    const row = {
      id: 'evt_1',
      merchant_id: 3,
      livemode: false,
      type: 'webhook.test',
      api_version: '2026-11-01',
      created_at: createdAt,
      data: stored({ kind: 'test', id: 'evt_1', eventType: 'webhook.test', live: false, created_at: createdAt }),
    };
    expect(toEventRecord(row)).toEqual({
      id: 'evt_1',
      merchant_id: 3,
      livemode: false,
      type: 'webhook.test',
      api_version: '2026-11-01',
      created_at: createdAt,
      subject: { kind: 'test', id: 'evt_1', eventType: 'webhook.test', live: false, created_at: createdAt },
    });
  });
});
