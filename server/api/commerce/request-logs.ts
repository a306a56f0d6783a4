import { getRequestLog, queryRequestLogs } from '../../domain/request-logs/request-log.service.js';
import { compileQuery } from '../../odata/index.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { odataBody } from './odata-list.js';
import { requestLogResource } from './odata/request-logs.js';
import { requestLogView } from './views/request-log.view.js';

/** The request log of the key's mode: an OData list (newest first unless `$orderby` says otherwise), one by id. */
export const commerceRequestLogHandlers: CommerceHandlers = {
  async listCommerceRequestLogs({ db, tenant, query }) {
    const compiled = compileQuery(requestLogResource, { $orderby: 'createdDateTime desc', ...query });
    return ok(odataBody(await queryRequestLogs(db, tenant, compiled), compiled, '/v1/RequestLog', requestLogView));
  },
  async getCommerceRequestLog({ db, tenant, path }) {
    return ok(requestLogView(await getRequestLog(db, tenant, path.id)));
  },
};
