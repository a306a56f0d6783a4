// The recipes of the Commerce funds: funding sources, accounts, transfers, transactions and the transfers dashboard.
import { created, type Recipe } from './fixtures.js';
import { fixturePaid } from './payment-fixtures.js';
import type { ConformanceContext } from '../types.js';
import { commerceJson, onOwnAndForeign } from './commerce-request.js';

/** The USD wallet account of the merchant behind `key`. */
export const fixtureAccount = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  (await commerceJson(ctx, 'listAccounts', { method: 'GET', path: '/v1/account' }, key)).value.find((a: { currencyCode: string }) => a.currencyCode === 'USD');
/** A funding source of the merchant behind `key` (the 3-D Secure card: it waits for verification). */
export const fixtureFundingSource = async (ctx: ConformanceContext, key?: string): Promise<number> =>
  (
    await commerceJson(
      ctx,
      'registerCard',
      {
        method: 'POST',
        path: '/v1/payment/RegisterCard',
        body: { card: { cardNumber: '4000000000003220', expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`, cvv: '123' } },
      },
      key,
    )
  ).fundingSourceId;
export const BANK_ACCOUNT = 'DE89370400440532013000';

/** A `Processing` transfer of the run's merchant (1.00 to a bank, from a payment settled now): its id. */
export async function fixtureTransfer(ctx: ConformanceContext): Promise<number> {
  const key = ctx.options.secretKey;
  await created(ctx, 'settleTestPayment', `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/settle`, undefined, key);
  const body = {
    sourceAccountId: (await fixtureAccount(ctx)).id,
    destinationAccountNumber: BANK_ACCOUNT,
    amount: 1,
    currencyCode: 'USD',
    transferAction: 'BankTransfer',
  };
  return (await commerceJson(ctx, 'createTransfer', { method: 'POST', path: '/v1/transfer', body })).id;
}

/** The funds operations of the Commerce interface (issue 15 §4). */
export const fundsRecipes: Record<string, Recipe> = {
  registerCard: {
    success: async () => ({
      path: '/v1/payment/RegisterCard',
      body: { card: { cardNumber: '4242424242424242', expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`, cvv: '123' } },
    }),
  },
  listFundingSources: { success: async () => ({ path: '/v1/FundingSource' }) },
  verifyFundingSource: {
    success: async (ctx) => {
      const id = await fixtureFundingSource(ctx);
      const outbox = await ctx.request('checkout', 'listTestMessages', {
        method: 'GET',
        path: '/v1/test-helpers/messages',
        key: ctx.options.secretKey,
        query: { kind: 'otp', limit: 20 },
      });
      const body: string = outbox.json?.data?.find((m: { body: string }) => m.body.includes(`funding source ${id} `))?.body ?? '';
      return { path: `/v1/fundingSource/${id}/verify`, body: { VerificationCode: /is (\d{6})\./.exec(body)?.[1] ?? '000000' } };
    },
    foreign: async (ctx, _info, key) => ({ path: `/v1/fundingSource/${await fixtureFundingSource(ctx, key)}/verify`, body: { VerificationCode: '123456' } }),
  },
  listAccounts: { success: async () => ({ path: '/v1/account' }) },
  getAccountBalance: onOwnAndForeign(fixtureAccount, (a) => `/v1/account/${a.id}/balance`),
  createTransfer: {
    success: async (ctx) => {
      await created(
        ctx,
        'settleTestPayment',
        `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/settle`,
        undefined,
        ctx.options.secretKey,
      );
      return {
        path: '/v1/transfer',
        body: {
          sourceAccountId: (await fixtureAccount(ctx)).id,
          destinationAccountNumber: BANK_ACCOUNT,
          amount: 1,
          currencyCode: 'USD',
          transferAction: 'BankTransfer',
        },
      };
    },
    foreign: async (ctx, _info, key) => ({
      path: '/v1/transfer',
      body: {
        sourceAccountId: (await fixtureAccount(ctx, key)).id,
        destinationAccountNumber: BANK_ACCOUNT,
        amount: 1,
        currencyCode: 'USD',
        transferAction: 'BankTransfer',
      },
    }),
  },
  listGatewayTransfers: { success: async () => ({ path: '/v1/GatewayTransferDto', query: { $top: 5, $count: true } }) },
  listTransactions: { success: async () => ({ path: '/v1/transaction', query: { $top: 5 } }) },
  getTransfersDashboard: { success: async () => ({ path: '/v1/FinancialDashboard/transfers', query: { timeUnit: 'Week' } }) },
};
