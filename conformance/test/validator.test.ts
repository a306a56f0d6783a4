// The suite's own validator wiring: a good answer passes, and every kind of break is caught.
import { describe, expect, it } from 'vitest';
import { ContractValidator, loadBundledContracts } from '../validator.js';

const validator = new ContractValidator(loadBundledContracts());
const docs = validator.docs;

const rateHeaders = (extra: Record<string, string> = {}) =>
  new Headers({
    'content-type': 'application/json',
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': '1',
    'x-request-id': 'req_abc12345',
    ...extra,
  });

/** The documented example body of an operation's response. */
function example(api: 'checkout' | 'commerce', path: string, method: string, status: string): any {
  const op = docs[api].paths[path][method];
  const response = validator.deref(api, op.responses[status]);
  const media = response.content['application/json'];
  return validator.deref(api, Object.values<any>(media.examples)[0]).value;
}

describe('ContractValidator', () => {
  const plan = () => structuredClone(example('checkout', '/v1/plans/{id}', 'get', '200'));

  it('accepts the documented example answer', () => {
    expect(validator.validateResponse('retrievePlan', 200, rateHeaders(), JSON.stringify(plan()))).toEqual([]);
  });

  it('catches a field of the wrong type', () => {
    const body = plan();
    body.data.amount = '19.99';
    expect(validator.validateResponse('retrievePlan', 200, rateHeaders(), JSON.stringify(body)).join('\n')).toMatch(/amount.*must be number/);
  });

  it('catches a missing required field', () => {
    const body = plan();
    delete body.data.currency;
    expect(validator.validateResponse('retrievePlan', 200, rateHeaders(), JSON.stringify(body)).join('\n')).toMatch(/currency/);
  });

  it('catches a value outside its enum', () => {
    const body = plan();
    body.data.interval = 'fortnight';
    expect(validator.validateResponse('retrievePlan', 200, rateHeaders(), JSON.stringify(body))).not.toEqual([]);
  });

  it('catches an undocumented status', () => {
    expect(validator.validateResponse('retrievePlan', 418, rateHeaders(), '{}')[0]).toMatch(/status 418 is not documented/);
  });

  it('catches a missing rate-limit header and a malformed one', () => {
    const headers = rateHeaders();
    headers.delete('x-ratelimit-remaining');
    headers.set('x-ratelimit-limit', 'lots');
    const problems = validator.validateResponse('retrievePlan', 200, headers, JSON.stringify(plan())).join('\n');
    expect(problems).toMatch(/X-RateLimit-Remaining is missing/);
    expect(problems).toMatch(/X-RateLimit-Limit/);
  });

  it('catches an undocumented content type and a body that is not JSON', () => {
    expect(validator.validateResponse('retrievePlan', 200, rateHeaders({ 'content-type': 'text/html' }), '<p>hi</p>')[0]).toMatch(/content-type "text\/html"/);
    expect(validator.validateResponse('retrievePlan', 200, rateHeaders(), '{oops')[0]).toMatch(/not valid JSON/);
  });

  it('catches an error in the wrong shape for the operation', () => {
    const general = { error: { type: 'not_found', code: 'resource_not_found', message: 'No such plan.' } };
    expect(validator.validateResponse('retrievePlan', 404, rateHeaders(), JSON.stringify(general))).not.toEqual([]);
    expect(validator.validateResponse('retrieveProduct', 404, rateHeaders(), JSON.stringify(general))).toEqual([]);
  });

  it('catches an unknown error code', () => {
    const body = { error: { type: 'not_found', code: 'no_such_thing', message: 'x' } };
    expect(validator.validateResponse('retrieveProduct', 404, rateHeaders(), JSON.stringify(body)).join('\n')).toMatch(/code/);
  });

  it('reads paths with OData parentheses', () => {
    const body = example('commerce', "/v1/invoice/getByReference(code='{code}')", 'get', '200');
    expect(validator.validateResponse('getInvoiceByReference', 200, rateHeaders(), JSON.stringify(body))).toEqual([]);
    expect(validator.validateResponse('getInvoiceByReference', 200, rateHeaders(), JSON.stringify({ ...body, totalCost: 'free' }))).not.toEqual([]);
  });

  it('wants no body on 204', () => {
    expect(validator.validateResponse('cancelCheckoutSession', 204, rateHeaders(), '')).toEqual([]);
    expect(validator.validateResponse('cancelCheckoutSession', 204, rateHeaders(), '{"ok":true}')).not.toEqual([]);
  });
});
