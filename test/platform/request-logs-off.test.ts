// TILL_REQUEST_LOGS=off: an operator who keeps no request log. The same requests reach a server with
// the log on and one with it off; once the first has written them, the second has written nothing.
import { expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { useTestServer } from '../support/server.js';

const on = useTestServer();
const off = useTestServer({ config: { requestLogs: false } });

it('TILL_REQUEST_LOGS is on unless "off"; anything else is refused at start, naming it', () => {
  expect(loadConfig({}).requestLogs).toBe(true);
  expect(loadConfig({ TILL_REQUEST_LOGS: 'ON' }).requestLogs).toBe(true);
  expect(loadConfig({ TILL_REQUEST_LOGS: 'off' }).requestLogs).toBe(false);
  expect(() => loadConfig({ TILL_REQUEST_LOGS: 'no' })).toThrow(/TILL_REQUEST_LOGS must be "on" or "off"; got "no"/);
});

it('with the request log off, no request is recorded (the same requests are, on a server with it on)', async () => {
  const rows = async (server: typeof on) => server.database.db.selectFrom('request_logs').select('request_id').execute();
  const [a, b] = [on.merchantA.keys.test.secret, off.merchantA.keys.test.secret];
  for (const [server, key] of [[off, b] as const, [on, a] as const]) {
    for (let i = 0; i < 3; i++) expect((await server.call('POST', '/v1/customers', { key, body: { email: `c${i}@example.com` } })).status).toBe(201);
  }
  await vi.waitFor(async () => expect((await rows(on)).length).toBeGreaterThanOrEqual(3), { timeout: 15_000, interval: 50 });
  expect(await rows(off)).toEqual([]);
  expect((await off.call('GET', '/v1/request-logs', { key: b })).json.data).toEqual([]);
});
