import { eventObject } from '../../server/api/checkout/views/event.view.js';
import { decodeSubject } from '../../server/domain/events/event.service.js';

/**
 * An event row as the Checkout interface delivers it: the stored `data` (the domain records the
 * event is about) replaced by the payload's `data.object`, exactly as a webhook carries it.
 */
export function delivered<T extends { data: unknown }>(row: T): Omit<T, 'data'> & { data: any } {
  const subject = decodeSubject(row.data as Record<string, unknown>);
  return { ...row, data: subject.kind === 'payload' ? subject.payload : eventObject(subject) };
}
