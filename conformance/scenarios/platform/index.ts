// Behaviour scenarios for what every operation shares: authentication and scopes (with managing
// roles and restricted keys), error bodies, idempotency, versioning, conventions,
// `POST /v1/client-token` and limits. The 429 scenarios come last in the report (they empty the
// client address's look-ups and a sandbox merchant's key's burst); the runner starts them early.
import type { Scenario } from '../../types.js';
import { auth } from './auth.js';
import { authPublishable } from './auth-publishable.js';
import { authScopes } from './auth-scopes.js';
import { clientToken } from './client-token.js';
import { conventions } from './conventions.js';
import { errors } from './errors.js';
import { idempotency } from './idempotency.js';
import { idempotencyPosts } from './idempotency-posts.js';
import { keysAndRoles } from './keys-and-roles.js';
import { auditLog } from './audit-log.js';
import { modes } from './modes.js';
import { ratePlans } from './rate-plans.js';
import { requestLogs } from './request-logs.js';
import { limits, publicLookup429, rateLimit429 } from './limits.js';
import { versioning } from './versioning.js';

export const platformScenarios: Scenario[] = [
  ...auth,
  ...authPublishable,
  ...authScopes,
  ...modes,
  ...keysAndRoles,
  ...auditLog,
  ...errors,
  ...idempotency,
  ...idempotencyPosts,
  ...versioning,
  ...conventions,
  ...clientToken,
  ...limits,
  ...ratePlans,
  ...requestLogs,
  publicLookup429,
  rateLimit429,
];
