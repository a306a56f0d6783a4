// The sandbox 3-D Secure page under races, on PostgreSQL: one challenge is answered once, and a
// confirm racing the answer never leaves two live payments.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { threeDSecureKit } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const { tokenize, confirm, retrieve, payments: paymentsOf, getPage, formToken, answer, inChallenge } = threeDSecureKit(t);

describe('the sandbox 3-D Secure page', () => {
  it('two answers racing on one challenge: exactly one goes through, the other answers 410', async () => {
    const { s, path } = await inChallenge();
    const token = formToken(await (await getPage(path)).text());
    const results = await Promise.all([answer(path, 'complete', token), answer(path, 'complete', token), answer(path, 'fail', token)]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 410, 410]);
    const payments = await paymentsOf(s);
    expect(payments).toHaveLength(1);
    expect(['succeeded', 'failed']).toContain(payments[0]!.status);
  });

  it('a confirm racing the challenge answer never leaves two live payments', async () => {
    const { s, path } = await inChallenge();
    const token = formToken(await (await getPage(path)).text());
    const pm = await tokenize(s, '4242424242424242');
    await Promise.all([answer(path, 'complete', token), confirm(s, { paymentMethodId: pm })]);
    const live = (await paymentsOf(s)).filter((p) => p.status !== 'failed');
    expect(live).toHaveLength(1);
    expect(live[0]!.status).toBe('succeeded');
    expect((await retrieve(s)).status).toBe('completed');
  });
});
