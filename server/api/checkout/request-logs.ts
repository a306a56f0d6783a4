import { getRequestLog, listRequestLogs } from '../../domain/request-logs/request-log.service.js';
import { listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { requestLogView } from './views/request-log.view.js';

const dateOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/** The request log of the key's mode: list with filters, retrieve one. */
export const requestLogHandlers: CheckoutHandlers = {
  async listRequestLogs({ db, tenant, query }) {
    const filters = {
      status: query.status,
      operationId: query.operationId,
      requestId: query.requestId,
      createdFrom: dateOf(query.createdFrom),
      createdTo: dateOf(query.createdTo),
    };
    return ok(listOf(await listRequestLogs(db, tenant, filters, pageOf(query, 25)), requestLogView));
  },
  async retrieveRequestLog({ db, tenant, path }) {
    return ok(requestLogView(await getRequestLog(db, tenant, path.id)));
  },
};
