// Fuzzes every operation of the Checkout and Billing contract (commerce.fuzz.test.ts: the Commerce one) with requests generated from the contracts' own
// schemas (test/support/fuzz/): broken in each way a schema allows, or valid with hostile values,
// with the right key, none or the wrong one, against real objects some of the time. Every answer
// must be below 500 (but the 501 of an operation not implemented here), in the documented shape,
// and leak nothing. A fixed seed by default; a longer run:
//
//   FUZZ_RUNS=2000 FUZZ_SEED=12345 npm run test:fuzz
//
// A failure prints its seed, operation and case index; FUZZ_ONLY=<operationId>[,<operationId>...] runs those operations.
// out/fuzz/report-<checkout|commerce>.json lists the answers slower than 5 s (FUZZ_SLOW_MS=<ms> lowers the bar, to see
// where a run's time goes). Most of it is the server's, not the cases': about half of the CPU is
// express-openapi-validator building an operation's validators, once per operation (it compiles the
// OpenAPI 3.1 meta-schema each time, though Till asks it not to validate the document) and again for
// every new request Content-Type (its validator cache is keyed by it), which costs 2-5 s for the
// event and delivery operations, whose response schemas are large; and the first one-day clock
// advance runs every retry due that day of the deliveries earlier cases left failing (to the
// contract's example hosts, which do not resolve here): about 480 attempts, 10 s.
import { expect, it } from 'vitest';
import { fuzzOperations } from '../support/fuzz/contract.js';
import { fuzzContract } from '../support/fuzz/suite.js';

it('the two fuzz files cover every operation of both contracts', () => {
  expect(fuzzOperations().length).toBe(141); // 125, eight of issue 35: locations, roles and keys (4), usage (2), failing a transfer; rejecting an invoice; the server-error test helper; the request logs' four and the audit log's two (issue 34)
});

fuzzContract('checkout');
