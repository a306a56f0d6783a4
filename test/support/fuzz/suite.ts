// The contract fuzz suite of one interface (test/fuzz/: one file per interface, so the two run side
// by side): every operation of that contract, against the file's own test server.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer, usingPostgres } from '../server.js';
import { fuzzCases } from './cases.js';
import { checkAnswer } from './check.js';
import { type FuzzOperation, fuzzOperations } from './contract.js';
import { makeFixtures } from './fixtures.js';
import { FuzzReport, preview } from './report.js';
import type { FuzzContext } from './request-parts.js';
import { closeConnections, send } from './send.js';
import { ServerErrors } from './server-errors.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20260118);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const ONLY = process.env.FUZZ_ONLY;

/** Each operation draws from its own seed, so adding an operation does not change the others' cases. */
function seedOf(op: FuzzOperation): number {
  let h = SEED | 0;
  for (const ch of op.operationId) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

/** Registers the fuzz tests of every operation of `api`; its report goes to out/fuzz/report-<api>.json. */
export function fuzzContract(api: FuzzOperation['api']): void {
  const operations = fuzzOperations().filter((op) => op.api === api && (!ONLY || ONLY.split(',').includes(op.operationId)));
  const serverErrors = new ServerErrors();
  const report = new FuzzReport(SEED, RUNS, usingPostgres ? 'postgres' : 'pglite');
  // No rate limit in the way: the point is to reach validation and the handlers.
  const t = useTestServer({ logger: serverErrors.logger, rateLimitScale: 1000, config: { webhookTimeoutMs: 200 } });
  let ctx: FuzzContext;

  beforeAll(async () => {
    ctx = await makeFixtures(t);
  });
  afterAll(() => {
    report.write(`out/fuzz/report-${api}.json`);
    closeConnections();
  });

  // FUZZ_ONLY may name only the other interface's operations: then this file has nothing to run.
  if (operations.length === 0) it.skip(`${api}: FUZZ_ONLY names none of its operations`);
  describe(`${api} contract fuzz (seed ${SEED}, ${RUNS} cases per operation)`, () => {
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
}
