// A payment's page in the dashboard shows its webhook deliveries in its timeline: each with the
// event it carried, its status, where it went and how many attempts it took.
import { expect, it } from 'vitest';
import { DashboardClient } from '../support/dashboard.js';
import { useWebhookServer } from '../support/webhooks.js';

const w = useWebhookServer();

it("a payment's timeline shows the webhook delivery of its payment.succeeded, delivered", async () => {
  const m = await w.t.newMerchant('Dashboard hooks');
  const receiver = await w.receiver();
  expect((await w.configure(m, { sandboxUrl: receiver.url })).status).toBe(201);
  const { paymentId } = await w.paidSession(m);
  await w.deliver();
  await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBeGreaterThan(0);
  const c = new DashboardClient(w.t.url);
  expect((await c.signIn(m.keys.test.secret)).status).toBe(303);
  const page = await c.get(`/dashboard/payments/${paymentId}`);
  expect(page.status).toBe(200);
  expect(page.html).toContain('Webhook payment.succeeded: succeeded');
  expect(page.html).toContain(receiver.url);
});
