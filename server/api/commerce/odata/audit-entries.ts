// The OData list of the audit log (issue 34, Till's design): the actor's and target's fields are
// filtered by flat names (`actorKeyPrefix`, `targetType`, ...), as OData paths into them are not taken.
import { defineResource } from '../../../odata/index.js';

export const auditEntryResource = defineResource({
  key: 'id',
  fields: {
    id: { column: 'id', type: 'int' },
    action: { column: 'action', type: 'string', sort: false },
    actorType: { column: 'actor_type', type: 'string', sort: false, select: false },
    actorKeyPrefix: { column: 'actor_key_prefix', type: 'string', nullable: true, sort: false, select: false },
    actorSession: { column: 'actor_session', type: 'string', nullable: true, sort: false, select: false },
    targetType: { column: 'target_type', type: 'string', sort: false, select: false },
    targetId: { column: 'target_id', type: 'string', sort: false, select: false },
    createdDateTime: { column: 'created_at', type: 'datetime' },
  },
});
