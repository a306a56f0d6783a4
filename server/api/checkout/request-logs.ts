import { getRequestLog, listRequestLogs } from '../../domain/request-logs/request-log.service.js';
import { AppError } from '../../shared/errors.js';
import { listOf, ok, pageOf } from '../kit.js';
import type { CheckoutHandlers } from '../types.js';
import { requestLogView } from './views/request-log.view.js';

/** An instant of the query; one the contract's format let through but no calendar has answers 400 naming it. */
function dateOf(text: string | undefined, param: string): Date | undefined {
  if (text === undefined) return undefined;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new AppError('parameter_invalid', { param, message: `${param} is not a date and time: ${text.slice(0, 40)}.` });
  return date;
}

/** The request log of the key's mode: list with filters, retrieve one. */
export const requestLogHandlers: CheckoutHandlers = {
  async listRequestLogs({ db, tenant, query }) {
    const filters = {
      status: query.status,
      operationId: query.operationId,
      requestId: query.requestId,
      createdFrom: dateOf(query.createdFrom, 'createdFrom'),
      createdTo: dateOf(query.createdTo, 'createdTo'),
    };
    return ok(listOf(await listRequestLogs(db, tenant, filters, pageOf(query, 25)), requestLogView));
  },
  async retrieveRequestLog({ db, tenant, path }) {
    return ok(requestLogView(await getRequestLog(db, tenant, path.id)));
  },
};
