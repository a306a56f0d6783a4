// The behaviour-scenario catalogue: every rule of checkout-billing-api.md and commerce-api.md,
// one scenario each. A scenario without `run` is pending until its capability exists; this list
// is the map of what is left to build. The long ones (durations.ts) are started first, whatever
// their place here. Each part is a folder (or file) of one file per resource; what several of them
// use is in fixtures/.
import type { Scenario } from '../types.js';
import { checkoutScenarios } from './checkout/index.js';
import { commerceScenarios } from './commerce.js';
import { withExpectedDurations } from './durations.js';
import { platformScenarios } from './platform/index.js';
import { webhookScenarios } from './webhooks.js';

export const scenarios: Scenario[] = withExpectedDurations([...checkoutScenarios, ...webhookScenarios, ...commerceScenarios, ...platformScenarios]);
