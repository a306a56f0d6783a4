// The scenarios that take long by design (a 30 s timeout waited out, subscriptions moved through
// days and weeks of the sandbox clock), with about how long each takes against Till on PGlite on
// an idle two-core machine. The runner starts them first, longest first
// (run-scenarios.ts), so their waits overlap the many short checks instead of ending the run.
//
// From a full run of 27 November 2026 at --concurrency 8 (each figure that run's time divided by 4,
// the machine's load then; the subscription checks measured 16–23 s idle before). What is not listed
// is short, except that a clock scenario counts as CLOCK_EXPECTED_MS. Refresh from a run's
// conformance.json (`durationMs` of each scenario) when checks change; only the order matters.
import type { Scenario } from '../types.js';

export const EXPECTED_MS: Readonly<Record<string, number>> = {
  'webhooks.delivery.timeout-30s': 31_000,
  'webhooks.events.subscription-activated': 23_000,
  'checkout.lists.subscription-invoices-up-to-100': 20_000,
  'checkout.subscription-states.past-due-recovery-activates': 20_000,
  'checkout.plan-states.archived-keeps-billing': 19_000,
  'checkout.refunds.rule-6-payment-not-from-session-404': 18_000,
  'checkout.subscription-states.cancel-at-period-end': 18_000,
  'commerce.transfers.processing-then-completed': 16_000,
  'checkout.subscription-states.trial-end-no-card-past-due': 16_000,
  'checkout.subscription-states.trial-end-activates': 16_000,
  'webhooks.events.subscription-cancelled-twice': 15_000,
  'checkout.subscriptions.invoices-default-100': 15_000,
  'webhooks.events.subscription-payment-failed': 13_000,
  'webhooks.events.subscription-past-due': 13_000,
  'commerce.invoice-states.overdue-can-pay': 12_000,
  'webhooks.events.invoice-past-due': 12_000,
  'webhooks.events.subscription-unpaid': 11_000,
  'checkout.subscription-states.dunning-exhausted-unpaid': 10_000,
  'checkout.subscriptions.plan-change-proration': 10_000,
};

/** The catalogue with each listed scenario's `expectedMs` (one its entry gives itself wins). */
export const withExpectedDurations = (scenarios: Scenario[]): Scenario[] =>
  scenarios.map((s) => (EXPECTED_MS[s.id] !== undefined && s.expectedMs === undefined ? { ...s, expectedMs: EXPECTED_MS[s.id] } : s));
