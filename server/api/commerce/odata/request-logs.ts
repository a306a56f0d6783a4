// The OData list of request logs, declared once: wire name, column, type.
import { defineResource } from '../../../odata/index.js';

export const requestLogResource = defineResource({
  key: 'id',
  fields: {
    id: { column: 'id', type: 'string' },
    method: { column: 'method', type: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] } },
    path: { column: 'path', type: 'string', sort: false },
    operationId: { column: 'operation_id', type: 'string' },
    statusCode: { column: 'status', type: 'int' },
    durationMs: { column: 'duration_ms', type: 'decimal' },
    requestId: { column: 'request_id', type: 'string', sort: false },
    idempotencyKey: { column: 'idempotency_key', type: 'string', nullable: true, sort: false },
    createdDateTime: { column: 'created_at', type: 'datetime' },
  },
});
