import { afterAll, expect } from 'vitest';
import { eventObject } from '../../server/api/checkout/views/event.view.js';
import { decodeSubject } from '../../server/domain/events/event.service.js';
import { createTestSession, type TestServer } from './server.js';
import { openStream, type SseStream } from './sse.js';

/**
 * An event row as the Checkout interface delivers it: the stored `data` (the domain records the
 * event is about) replaced by the payload's `data.object`, exactly as a webhook carries it.
 */
export function delivered<T extends { data: unknown }>(row: T): Omit<T, 'data'> & { data: any } {
  const subject = decodeSubject(row.data as Record<string, unknown>);
  return { ...row, data: subject.kind === 'payload' ? subject.payload : eventObject(subject) };
}

/** Cancels a new session of merchant A in test mode: one `checkout.session.cancelled` event. Returns the session id. */
export async function cancelledSession(t: TestServer): Promise<string> {
  const s = await createTestSession(t, t.merchantA);
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: t.merchantA.keys.test.secret, body: {} });
  expect(res.status).toBe(204);
  return s.id;
}

/**
 * The file's streams of `GET /v1/events/stream` (closed after its last test): `stream(headers, url)`
 * opens one with merchant A's test secret key unless the headers say otherwise, on the server's URL
 * unless another is given.
 */
export function useEventStreams(t: TestServer): (headers?: Record<string, string>, url?: string) => Promise<SseStream> {
  const streams: SseStream[] = [];
  afterAll(() => {
    for (const s of streams.splice(0)) s.close();
  });
  return async (headers = {}, url = t.url) => {
    const s = await openStream(`${url}/v1/events/stream`, { authorization: `Bearer ${t.merchantA.keys.test.secret}`, ...headers });
    streams.push(s);
    return s;
  };
}
