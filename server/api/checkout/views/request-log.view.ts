import type { components } from '../../../../generated/checkout.js';
import type { RequestLogRow } from '../../../domain/request-logs/request-log.service.js';

type RequestLog = components['schemas']['RequestLog'];

/** A logged request as the Checkout & Billing interface shows it (bodies already redacted when stored). */
export function requestLogView(row: RequestLogRow): RequestLog {
  return {
    object: 'request_log',
    id: row.id,
    method: row.method as RequestLog['method'],
    path: row.path,
    operationId: row.operation_id,
    status: row.status,
    durationMs: row.duration_ms,
    requestId: row.request_id,
    idempotencyKey: row.idempotency_key,
    keyPrefix: row.key_prefix,
    clientAddress: row.client_address,
    requestBody: row.request_body as RequestLog['requestBody'],
    responseBody: row.response_body as RequestLog['responseBody'],
    livemode: row.livemode,
    createdAt: row.created_at.toISOString(),
  };
}
