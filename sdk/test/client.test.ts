// Pure logic of the SDK: option checks and error construction. No network.
import { describe, expect, it } from 'vitest';
import {
  createCheckoutClient,
  createCommerceClient,
  errorClasses,
  TillConflictError,
  TillError,
  TillInvalidRequestError,
  TillProcessorError,
  tillErrorFrom,
} from '../src/index.js';
import type { WebhookEvent, WebhookEventOf } from '../src/index.js';
import { bundled } from './helpers.js';

describe('client options', () => {
  const baseUrl = 'http://localhost:3000';

  it('refuses a publishable key passed as the secret key, without echoing the key', () => {
    const key = 'pk_test_TYooMQauvdEDq54NiTphI7jx';
    expect(() => createCheckoutClient({ baseUrl, secretKey: key })).toThrow(/publishable key \(pk_\.\.\.\) was given/);
    try {
      createCheckoutClient({ baseUrl, secretKey: key });
    } catch (err) {
      expect(String((err as Error).message)).not.toContain(key);
    }
  });

  it('needs the client secret with a publishable key', () => {
    expect(() => createCheckoutClient({ baseUrl, publishableKey: 'pk_test_abc', clientSecret: '' })).toThrow(/clientSecret/);
  });

  it('needs some credential, and an absolute base URL', () => {
    expect(() => createCheckoutClient({ baseUrl } as never)).toThrow(/secretKey/);
    expect(() => createCheckoutClient({ baseUrl: 'localhost:3000', secretKey: 'sk_test_abc' })).toThrow(/baseUrl/);
    expect(() => createCommerceClient({ baseUrl, apiKey: 'not-a-key' })).toThrow(/apiKey/);
  });

  it('sends the right headers for each kind of credential', async () => {
    const seen: Headers[] = [];
    const fetch = async (request: Request) => {
      seen.push(request.headers);
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    };
    await createCheckoutClient({ baseUrl, secretKey: 'sk_test_abc', fetch }).GET('/v1/plans');
    await createCheckoutClient({ baseUrl, publishableKey: 'pk_test_abc', clientSecret: 'cs_test_x_secret_y', fetch }).GET('/v1/checkout-sessions/{id}', {
      params: { path: { id: 'cs_test_x' } },
    });
    await createCommerceClient({ baseUrl, apiKey: 'sk_test_abc', fetch }).GET('/v1/account');
    await createCommerceClient({ baseUrl, fetch }).GET("/v1/invoice/getByReference(code='{code}')", { params: { path: { code: 'X' } } });
    expect(seen[0]!.get('authorization')).toBe('Bearer sk_test_abc');
    expect(seen[1]!.get('authorization')).toBe('Bearer pk_test_abc');
    expect(seen[1]!.get('x-client-secret')).toBe('cs_test_x_secret_y');
    expect(seen[2]!.get('x-api-key')).toBe('sk_test_abc');
    expect(seen[2]!.get('authorization')).toBeNull();
    expect(seen[3]!.get('x-api-key')).toBeNull();
  });
});

describe('tillErrorFrom', () => {
  it('reads the general body', () => {
    const err = tillErrorFrom(400, { error: { type: 'invalid_request', code: 'amount_too_small', message: 'Too small.', param: 'amount' } }, 'req_1');
    expect(err).toBeInstanceOf(TillInvalidRequestError);
    expect(err).toMatchObject({ code: 'amount_too_small', param: 'amount', statusCode: 400, requestId: 'req_1', message: 'Too small.' });
  });

  it('reads the envelope with refund detail', () => {
    const err = tillErrorFrom(409, {
      success: false,
      errorCode: 'refund_failed',
      errorMessage: 'The balance is short.',
      data: { type: 'conflict', refundable: true, reason: 'settled', manualRefundRequired: true, retryable: false },
    });
    expect(err).toBeInstanceOf(TillConflictError);
    expect(err.code).toBe('refund_failed');
    expect(err.data?.manualRefundRequired).toBe(true);
    expect(err.retryable).toBe(false);
  });

  it('falls back on the status for bodies that are not Till errors', () => {
    const err = tillErrorFrom(502, '<html>Bad gateway</html>');
    expect(err).toBeInstanceOf(TillProcessorError);
    expect(err.code).toBe('unknown_error');
    expect(err).toBeInstanceOf(TillError);
  });

  it('has one class for every error type in the contract', () => {
    const types: string[] = bundled('checkout').components.schemas.ErrorType.enum;
    expect(Object.keys(errorClasses).sort()).toEqual([...types].sort());
  });
});

describe('typed webhook events', () => {
  it('narrows the documented payment.refunded example on `type`', () => {
    const doc = bundled('checkout');
    const examples = doc.webhooks['payment.refunded'].post.requestBody.content['application/json'].examples;
    const first = Object.values<any>(examples)[0];
    const value = first.$ref ? doc.components.examples[first.$ref.split('/').pop()].value : first.value;
    const event = value as WebhookEvent;
    let refunded: number | undefined;
    if (event.type === 'payment.refunded') {
      const typed: WebhookEventOf<'payment.refunded'> = event;
      refunded = typed.data.object.refundedAmount;
    }
    expect(refunded).toBe(value.data.object.refundedAmount);
    expect(typeof refunded).toBe('number');
  });
});
