import { getEvent, listEvents, streamStart } from '../../domain/events/event-read.service.js';
import { AppError } from '../../shared/errors.js';
import { listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { eventFeedOf } from './event-feed.js';
import { serveEventStream } from './event-stream.js';
import { eventEnvelope } from './views/event.view.js';

/** Events: read back as webhooks deliver them, and streamed in test mode (`npm run listen`). */
export const eventHandlers: CheckoutHandlers = {
  async listEvents({ db, tenant, query }) {
    return ok(listOf(await listEvents(db, tenant, { ...pageOf(query, 25), type: query.type }), eventEnvelope));
  },
  async retrieveEvent({ db, tenant, path }) {
    return ok(eventEnvelope(await getEvent(db, tenant, path.id)));
  },
  async streamEvents({ db, deps, tenant, headers, log }) {
    if (tenant.livemode)
      throw new AppError('livemode_not_allowed', {
        message: 'Events are streamed in test mode only (sk_test_...); in live mode, configure a webhook endpoint.',
      });
    const lastEventId = headers['last-event-id'];
    const startSeq = await streamStart(db, tenant, typeof lastEventId === 'string' ? lastEventId : undefined);
    const feed = eventFeedOf(deps.database, deps.logger);
    return { status: 200, stream: (req, res) => serveEventStream(req, res, { db, tenant, feed, startSeq, log }) };
  },
};
