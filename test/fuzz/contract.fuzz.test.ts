// Fuzzes every operation of both contracts with requests generated from the contracts' own
// schemas (test/support/fuzz/): broken in each way a schema allows, or valid with hostile values,
// with the right key, none or the wrong one, against real objects some of the time. Every answer
// must be below 500 (but the 501 of an operation not implemented here), in the documented shape,
// and leak nothing. A fixed seed by default; a longer run:
//
//   FUZZ_RUNS=2000 FUZZ_SEED=12345 npx vitest run test/fuzz
//
// A failure prints its seed, operation and case index; FUZZ_ONLY=<operationId>[,<operationId>...] runs those operations.
// out/fuzz/report.json lists the answers slower than 5 s (FUZZ_SLOW_MS=<ms> lowers the bar, to see
// where a run's time goes). Most of it is the server's, not the cases': about half of the CPU is
// express-openapi-validator building an operation's validators, once per operation (it compiles the
// OpenAPI 3.1 meta-schema each time, though Till asks it not to validate the document) and again for
// every new request Content-Type (its validator cache is keyed by it), which costs 2-5 s for the
// event and delivery operations, whose response schemas are large; and the first one-day clock
// advance runs every retry due that day of the deliveries earlier cases left failing (to the
// contract's example hosts, which do not resolve here): about 480 attempts, 10 s.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzCases } from '../support/fuzz/cases.js';
import { checkAnswer } from '../support/fuzz/check.js';
import { type FuzzOperation, fuzzOperations } from '../support/fuzz/contract.js';
import { makeFixtures } from '../support/fuzz/fixtures.js';
import { FuzzReport, preview } from '../support/fuzz/report.js';
import type { FuzzContext } from '../support/fuzz/request-parts.js';
import { closeConnections, send } from '../support/fuzz/send.js';
import { ServerErrors } from '../support/fuzz/server-errors.js';
import { useTestServer, usingPostgres } from '../support/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20260118);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const ONLY = process.env.FUZZ_ONLY;

/** Each operation draws from its own seed, so adding an operation does not change the others' cases. */
function seedOf(op: FuzzOperation): number {
  let h = SEED | 0;
  for (const ch of op.operationId) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

const operations = fuzzOperations().filter((op) => !ONLY || ONLY.split(',').includes(op.operationId));
const serverErrors = new ServerErrors();
const report = new FuzzReport(SEED, RUNS, usingPostgres ? 'postgres' : 'pglite');
// No rate limit in the way: the point is to reach validation and the handlers.
const t = useTestServer({ logger: serverErrors.logger, rateLimitScale: 1000, config: { webhookTimeoutMs: 200 } });
let ctx: FuzzContext;

beforeAll(async () => {
  ctx = await makeFixtures(t);
});
afterAll(() => {
  report.write();
  closeConnections();
});

describe(`contract fuzz (seed ${SEED}, ${RUNS} cases per operation)`, () => {
  it('covers every operation of both contracts', () => {
    if (!ONLY) expect(operations.length).toBe(125);
  });

  for (const op of operations) {
    it(
      `${op.api} ${op.operationId}: no 5xx, documented error shapes, nothing leaked`,
      async () => {
        const seed = seedOf(op);
        const cases = fc.sample(fuzzCases(op, ctx), { seed, numRuns: RUNS });
        const failed: string[] = [];
        for (const [index, c] of cases.entries()) {
          const started = Date.now();
          const answer = await send(t.url, c).catch((err: Error) => ({
            status: 0,
            headers: new Headers(),
            text: '',
            error: `no answer after ${Date.now() - started} ms: ${err.message}`,
          }));
          report.record(op, c, answer.status, Date.now() - started, index);
          const problems = 'error' in answer ? [answer.error] : checkAnswer(op, c, answer);
          if (problems.length === 0) continue;
          report.fail({
            operationId: op.operationId,
            seed,
            index,
            kind: c.kind,
            auth: c.auth,
            request: { method: c.method, path: c.path.slice(0, 2000), headers: c.headers, body: preview(c.body) },
            status: answer.status,
            problems,
            answer: answer.text.slice(0, 1000),
            serverLog: serverErrors.about(answer.text),
          });
          failed.push(`#${index} ${c.kind} (${c.auth}) ${c.method} ${c.path.slice(0, 200)} → ${answer.status}: ${problems.join('; ')}`);
        }
        expect(failed, `seed ${seed}`).toEqual([]);
      },
      30_000 + RUNS * 2_000,
    );
  }
});
