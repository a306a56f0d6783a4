// The notification hub's pure parts: the SignalR JSON hub protocol's records and messages, and the
// reading of the database's invoice notifications into `InvoiceUpdated` in the Commerce words.
import { describe, expect, it } from 'vitest';
import { readInvoiceChange, wireStatus } from '../../server/hub/invoice-updated.js';
import { answerHandshake, messages, parseClientMessage, ProtocolError, RECORD_SEPARATOR as RS, splitRecords } from '../../server/hub/protocol.js';

describe('records', () => {
  it('splits complete records and keeps an unfinished one for the next frame', () => {
    expect(splitRecords(`{"type":6}${RS}{"type":1,`)).toEqual({ records: ['{"type":6}'], rest: '{"type":1,' });
    expect(splitRecords(`a${RS}b${RS}`)).toEqual({ records: ['a', 'b'], rest: '' });
    expect(splitRecords('')).toEqual({ records: [], rest: '' });
  });

  it('writes the server messages as the spec shows them, each ended by 0x1E', () => {
    expect(messages.handshake()).toBe(`{}${RS}`);
    expect(messages.handshake('nope')).toBe(`{"error":"nope"}${RS}`);
    expect(messages.ping()).toBe(`{"type":6}${RS}`);
    expect(messages.invocation('InvoiceUpdated', [{ invoiceId: 1, status: 'Paid' }])).toBe(
      `{"type":1,"target":"InvoiceUpdated","arguments":[{"invoiceId":1,"status":"Paid"}]}${RS}`,
    );
    expect(messages.completion('7', { result: 42 })).toBe(`{"type":3,"invocationId":"7","result":42}${RS}`);
    expect(messages.completion('7', {})).toBe(`{"type":3,"invocationId":"7"}${RS}`);
    expect(messages.completion('7', { error: 'no' })).toBe(`{"type":3,"invocationId":"7","error":"no"}${RS}`);
    expect(messages.close()).toBe(`{"type":7}${RS}`);
    expect(messages.close('bye', true)).toBe(`{"type":7,"error":"bye","allowReconnect":true}${RS}`);
  });
});

describe('the handshake', () => {
  it('accepts json version 1 (and 2, whose only additions this hub never turns on)', () => {
    expect(answerHandshake('{"protocol":"json","version":1}')).toEqual({ ok: true });
    expect(answerHandshake('{"protocol":"json","version":2}')).toEqual({ ok: true });
  });

  it('refuses another protocol or version, and anything that is not a handshake request', () => {
    expect(answerHandshake('{"protocol":"messagepack","version":1}')).toEqual({ ok: false, error: "Requested protocol 'messagepack' is not available." });
    expect(answerHandshake('{"protocol":"json","version":3}')).toEqual({ ok: false, error: "The server does not support version 3 of the 'json' protocol." });
    expect(answerHandshake('{"type":6}')).toMatchObject({ ok: false });
    expect(answerHandshake('not json')).toMatchObject({ ok: false });
  });
});

describe('client messages', () => {
  it('reads invocations (blocking or not), pings and close; ignores what the hub has no use for', () => {
    expect(parseClientMessage('{"type":1,"invocationId":"1","target":"SubscribeToInvoice","arguments":["x"]}')).toEqual({
      type: 1,
      invocationId: '1',
      target: 'SubscribeToInvoice',
      arguments: ['x'],
    });
    expect(parseClientMessage('{"type":1,"target":"T","arguments":[],"headers":{"a":"b"}}')).toEqual({ type: 1, target: 'T', arguments: [] });
    expect(parseClientMessage('{"type":4,"invocationId":"2","target":"T","arguments":[]}')).toMatchObject({ type: 4 });
    expect(parseClientMessage('{"type":6}')).toEqual({ type: 6 });
    expect(parseClientMessage('{"type":7,"error":"x"}')).toEqual({ type: 7, error: 'x' });
    for (const type of [2, 3, 5, 8, 9, 42]) expect(parseClientMessage(`{"type":${type}}`)).toEqual({ type: 'ignored' });
  });

  it('throws a ProtocolError for a malformed message', () => {
    for (const text of [
      'nope',
      '[]',
      '{"type":"1"}',
      '{"type":1,"target":5,"arguments":[]}',
      '{"type":1,"target":"T"}',
      `{"type":1,"invocationId":"${'x'.repeat(200)}","target":"T","arguments":[]}`,
    ]) {
      expect(() => parseClientMessage(text), text).toThrow(ProtocolError);
    }
  });
});

describe('InvoiceUpdated', () => {
  it('shows every stored status in the Commerce interface words', () => {
    const stored = ['draft', 'pending', 'sent', 'partially_paid', 'paid', 'overdue', 'cancelled', 'expired'];
    expect(stored.map(wireStatus)).toEqual(['Draft', 'Pending', 'Sent', 'PartiallyPaid', 'Paid', 'Overdue', 'Cancelled', 'Expired']);
    expect(wireStatus('refunded')).toBeUndefined();
  });

  it("reads the trigger's payload into who owns the invoice and the event", () => {
    const payload = JSON.stringify({ id: 12, merchant_id: 3, livemode: false, identifier: 'AB5E6C1A-0000-4000-8000-000000000001', status: 'partially_paid' });
    expect(readInvoiceChange(payload)).toEqual({
      tenant: { merchantId: 3, livemode: false },
      identifier: 'ab5e6c1a-0000-4000-8000-000000000001',
      event: { invoiceId: 12, status: 'PartiallyPaid' },
    });
  });

  it('reads nothing from a payload it cannot trust', () => {
    for (const payload of [
      '',
      'null',
      '{}',
      '{"id":"12","merchant_id":3,"livemode":false,"identifier":"x","status":"paid"}',
      '{"id":12,"merchant_id":3,"livemode":false,"identifier":"x","status":"weird"}',
    ]) {
      expect(readInvoiceChange(payload), payload).toBeUndefined();
    }
  });
});
