// The request log's recipes: a log of the merchant behind a key, once its batch is written.
import type { ConformanceContext } from '../types.js';
import type { Recipe } from './fixtures.js';

/** The id of the request log of a request just made with `key` (logs are written in batches: it waits, up to 20 s). */
async function fixtureRequestLog(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<string> {
  const made = await ctx.request('checkout', 'listEvents', { method: 'GET', path: '/v1/events', query: { limit: 1 }, key });
  const requestId = made.headers.get('x-request-id');
  if (!requestId) throw new Error(`setup: listEvents answered ${made.status} without X-Request-Id`);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await ctx.request('checkout', 'listRequestLogs', { method: 'GET', path: '/v1/request-logs', query: { requestId }, key });
    const id = page.json?.data?.[0]?.id;
    if (typeof id === 'string') return id;
    if (Date.now() > deadline) throw new Error(`setup: the request log of ${requestId} was not there after 20 s: ${page.status} ${page.text.slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const requestLogRecipes: Record<string, Recipe> = {
  listRequestLogs: { success: async () => ({ path: '/v1/request-logs', query: { limit: 5 } }) },
  retrieveRequestLog: {
    success: async (ctx) => ({ path: `/v1/request-logs/${await fixtureRequestLog(ctx)}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/request-logs/${await fixtureRequestLog(ctx, key)}` }),
  },
  listCommerceRequestLogs: { success: async () => ({ path: '/v1/RequestLog', query: { $top: 5, $count: true } }) },
  getCommerceRequestLog: {
    success: async (ctx) => ({ path: `/v1/RequestLog/${await fixtureRequestLog(ctx)}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/RequestLog/${await fixtureRequestLog(ctx, key)}` }),
  },
};
