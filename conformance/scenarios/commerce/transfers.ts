// A transfer's way (commerce-api.md, "Transfer": statuses `Processing`, `Completed`, `Failed`): made
// `Processing`, then `Completed` on the sandbox clock or `Failed` by the test helper, with the
// Checkout & Billing interface's `transfer.*` events; and the transfers dashboard's `institutionId`.
// When a transfer completes is Till's design (see createTransfer in the Commerce contract).
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { commerce, DASHBOARDS, FUND, fundedAccount, sendToBank, TRANSFER } from '../fixtures/commerce-funds.js';

/** One transfer, read back through the transfer list. */
async function transferById(ctx: ConformanceContext, id: number): Promise<any> {
  const res = await commerce(ctx, 'listGatewayTransfers', { method: 'GET', path: '/v1/GatewayTransferDto', query: { $filter: `id eq ${id}` } });
  expectStatus(res, 200, 'list the transfer');
  return res.json.value[0];
}

/** The `transfer.*` events of one transfer (events API), oldest first: their types. */
async function transferEventTypes(ctx: ConformanceContext, id: number): Promise<string[]> {
  const res = await call(ctx, 'checkout', 'listEvents', { method: 'GET', path: '/v1/events', key: secretKey(ctx), query: { type: 'transfer.*', limit: 100 } });
  expectStatus(res, 200, 'list the transfer events');
  return res.json.data
    .filter((e: any) => e.data.object.id === id)
    .map((e: any) => e.type)
    .reverse();
}

export const transferScenarios: Scenario[] = [
  clocked(
    'commerce.transfers.processing-then-completed',
    'A transfer is `Processing` when made (`transfer.processing`), then `Completed` at its `completionDateTime` on the sandbox clock (`transfer.completed`): the next business day out of Till',
    TRANSFER,
    [...FUND, 'createTransfer', 'listGatewayTransfers', 'listEvents'],
    {
      async run(ctx) {
        const account = await fundedAccount(ctx, 10);
        const made = await sendToBank(ctx, account.id, 1);
        expectStatus(made, 201, 'make a bank transfer');
        assert.equal(made.json.status, 'Processing', JSON.stringify(made.json));
        assert.equal(made.json.institutionId, 2, 'a bank transfer goes through the bank network');
        const due = secondsUntil(made.json.completionDateTime, made.json.createdDateTime);
        assert.ok(due >= 86_400 && due <= 3 * 86_400, `the next business day: ${made.json.createdDateTime} -> ${made.json.completionDateTime}`);
        await advanceClock(ctx, due - 60);
        assert.equal((await transferById(ctx, made.json.id)).status, 'Processing', 'still processing a minute before it is due');
        await advanceClock(ctx, 61);
        const done = await transferById(ctx, made.json.id);
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        assert.deepEqual(await transferEventTypes(ctx, made.json.id), ['transfer.processing', 'transfer.completed']);
      },
    },
  ),
  scenario(
    'commerce.transfers.fail-returns-funds',
    'A `Processing` transfer that fails (test helper `failTestTransfer`) is `Failed` with `failureReason`, its amount and fee are back in the available balance exactly, and `transfer.failed` is sent',
    TRANSFER,
    [...FUND, 'createTransfer', 'failTestTransfer', 'getAccountBalance', 'listGatewayTransfers', 'listEvents'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 10);
      const balance = async () => (await commerce(ctx, 'getAccountBalance', { method: 'GET', path: `/v1/account/${account.id}/balance` })).json.availableAmount;
      const before = await balance();
      const made = await sendToBank(ctx, account.id, 2.5);
      expectStatus(made, 201, 'make a bank transfer');
      assert.equal(Math.round((before - (await balance())) * 100), 253, '2.50 and its 0.03 fee left the available balance');
      const failed = await call(ctx, 'checkout', 'failTestTransfer', {
        method: 'POST',
        path: `/v1/test-helpers/transfers/${made.json.id}/fail`,
        key: secretKey(ctx),
        body: { failureReason: 'Conformance: the bank account is closed.' },
      });
      expectStatus(failed, 200, 'fail the transfer');
      assert.equal(failed.json.status, 'Failed');
      assert.equal(Math.round((await balance()) * 100), Math.round(before * 100), 'the amount and the fee are available again');
      const listed = await transferById(ctx, made.json.id);
      assert.deepEqual([listed.status, listed.failureReason], ['Failed', 'Conformance: the bank account is closed.']);
      assert.deepEqual(await transferEventTypes(ctx, made.json.id), ['transfer.processing', 'transfer.failed']);
      const again = await call(ctx, 'checkout', 'failTestTransfer', {
        method: 'POST',
        path: `/v1/test-helpers/transfers/${made.json.id}/fail`,
        key: secretKey(ctx),
        body: {},
      });
      expectError(again, 409, 'conflict', 'invalid_state');
    },
    { ownMerchant: true },
  ),
  scenario(
    'commerce.dashboards.transfers-institution',
    "The transfers dashboard's `institutionId` counts only the transfers through that institution (a transfer's `institutionId`: 1 Till, 2 the bank network, 3 the CBDC network)",
    DASHBOARDS,
    [...FUND, 'createTransfer', 'getTransfersDashboard'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 10);
      expectStatus(await sendToBank(ctx, account.id, 1, 'BankWithdrawal'), 201, 'a bank withdrawal');
      const cbdcTransfer = await sendToBank(ctx, account.id, 1, 'CBDCTransfer');
      expectStatus(cbdcTransfer, 201, 'a CBDC transfer');
      // The day the transfers were made, on the merchant's clock.
      const day = String(cbdcTransfer.json.createdDateTime).slice(0, 10);
      const board = async (institutionId?: number) => {
        const query = { startDate: day, endDate: day, currencyCode: 'USD', ...(institutionId === undefined ? {} : { institutionId }) };
        const res = await commerce(ctx, 'getTransfersDashboard', { method: 'GET', path: '/v1/FinancialDashboard/transfers', query });
        expectStatus(res, 200, `the dashboard of institution ${institutionId ?? 'any'}`);
        return res.json;
      };
      const banks = await board(2);
      assert.ok(banks.summary.totalTransfers >= 1, 'the withdrawal counts under the bank network');
      assert.deepEqual(
        banks.typeBreakdown.map((x: any) => x.requestType).filter((x: string) => x !== 'BankTransfer' && x !== 'BankWithdrawal'),
        [],
        'only bank transfers and withdrawals under institution 2',
      );
      const cbdc = await board(3);
      assert.ok(cbdc.summary.totalTransfers >= 1, 'the CBDC transfer counts under the CBDC network');
      assert.deepEqual([...new Set(cbdc.typeBreakdown.map((x: any) => x.requestType))], ['CBDCTransfer']);
      const all = await board();
      const till = await board(1);
      assert.equal(
        banks.summary.totalTransfers + cbdc.summary.totalTransfers + till.summary.totalTransfers,
        all.summary.totalTransfers,
        'the institutions share the transfers out',
      );
      assert.equal((await board(4)).summary.totalTransfers, 0, 'no transfer goes through institution 4');
    },
  ),
];
