// Finding the operation of a request: every operation of both contracts is found at its own
// path, whatever the case of a Commerce path, under the Checkout `/api` alias, with OData keys and
// a trailing slash; a path's other methods are named; an unknown path is not found. The table
// tries only the operations whose path starts like the request's, so these cover that index.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../server/http/routes.js';
import type { OpenApiDocument } from '../../server/openapi/document.js';

/**
 * A bundled contract, as the app reads it (`loadContracts` in server/openapi/contracts.ts): read here, because
 * importing the app for it would load the whole server (seconds) to test one table.
 */
const contract = (api: string) => JSON.parse(readFileSync(new URL(`../../generated/${api}.openapi.json`, import.meta.url), 'utf8')) as OpenApiDocument;
const routes = new RouteTable({ checkout: contract('checkout'), commerce: contract('commerce') });
/** A path for a template: each parameter a plain value (a number where ids are numbers). */
const pathOf = (template: string) => template.replace(/\{([^}]+)\}/g, (_m, name: string) => (/id$/i.test(name) ? '42' : 'abc'));

describe('RouteTable.resolve', () => {
  it.each(routes.operations.map((r) => [r.operationId, r] as const))('finds %s at its own path', (_id, route) => {
    const found = routes.resolve(route.method, pathOf(route.template));
    expect(found).toMatchObject({ kind: 'found', route: { operationId: route.operationId } });
  });

  it('matches Commerce paths in any case, and Checkout paths under /api, with or without a trailing slash', () => {
    const commerce = routes.operations.filter((r) => r.api === 'commerce' && r.method === 'GET');
    for (const route of commerce) {
      expect(routes.resolve('GET', pathOf(route.template).toUpperCase().replace('/V1/', '/v1/'))).toMatchObject({
        kind: 'found',
        route: { operationId: route.operationId },
      });
    }
    const plan = routes.resolve('GET', '/api/v1/plans/7/');
    expect(plan).toMatchObject({ kind: 'found', route: { api: 'checkout', template: '/v1/plans/{id}' }, params: { id: '7' } });
    expect(routes.resolve('POST', '/api/payment/payinvoice')).toMatchObject({ kind: 'found', route: { api: 'commerce' } });
  });

  it("reads an OData key, '' as one quote, and prefers the more literal template", () => {
    const found = routes.resolve('GET', "/v1/invoice/getByReference(code='O''Brien')");
    expect(found).toMatchObject({ kind: 'found', route: { operationId: expect.stringMatching(/reference/i) } });
    expect(Object.values((found as { params: Record<string, string> }).params)).toContain("O'Brien");
  });

  it('names the other methods of a known path, and finds nothing at an unknown one', () => {
    expect(routes.resolve('DELETE', '/v1/checkout-sessions')).toMatchObject({ kind: 'method_not_allowed', allowed: expect.arrayContaining(['POST']) });
    expect(routes.resolve('GET', '/v1/nothing-here')).toEqual({ kind: 'not_found' });
    expect(routes.resolve('GET', '/v1')).toEqual({ kind: 'not_found' });
    expect(routes.resolve('GET', '/')).toEqual({ kind: 'not_found' });
  });
});
