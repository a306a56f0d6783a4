// The run's webhook receiver server: one server, a path per receiver. A request goes to the receiver its
// last path segment names (whatever prefix a proxy in front keeps), an unknown one is answered 404, a
// receiver's path closes (and what it left hanging is ended) when its check ends, and the server when
// the run ends.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { receiverServer } from '../scenarios/fixtures/receiver-server.js';
import type { ConformanceContext } from '../types.js';

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A run's context as the receiver uses it: its options, and its unit-end and run-end clean-ups. */
function fakeRun(receiver: { url: string; port: number }) {
  const unitEnds: (() => Promise<unknown>)[] = [];
  const runEnds: (() => Promise<unknown>)[] = [];
  const ctx = {
    options: { baseUrl: 'http://till.test', secretKey: 'sk_test_x', target: 'server', receiver },
    onUnitEnd: (fn: () => Promise<unknown>) => unitEnds.push(fn),
    onCleanup: (fn: () => Promise<unknown>) => runEnds.push(fn),
  } as unknown as ConformanceContext;
  const run = async (fns: (() => Promise<unknown>)[]) => {
    for (const fn of fns.splice(0).reverse()) await fn();
  };
  return { ctx, endUnit: () => run(unitEnds), endRun: () => run(runEnds) };
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the webhook receiver server', () => {
  let endRun: (() => Promise<void>) | undefined;
  afterEach(async () => endRun?.());

  it('serves every receiver of the run from the one port given, routed by the last path segment', async () => {
    const port = await freePort();
    const run = fakeRun({ url: `http://127.0.0.1:${port}/behind/a/proxy`, port });
    endRun = run.endRun;
    const server = (await receiverServer(run.ctx))!;
    expect(await receiverServer(run.ctx)).toBe(server);
    const first = server.add(run.ctx, 'conftest');
    const second = server.add(run.ctx, 'conftest');
    expect(first.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/behind/a/proxy/hooks/conftest-\\d+$`));
    second.respond(() => 202);

    expect((await post(first.url, { id: 'evt_1' })).status).toBe(200);
    // A proxy that drops the URL's prefix: the last segment still names the receiver.
    const id = second.url.split('/').at(-1);
    expect((await post(`http://127.0.0.1:${port}/${id}`, { id: 'evt_2' })).status).toBe(202);
    expect(first.received.map((r) => [r.json.id, r.raw])).toEqual([['evt_1', '{"id":"evt_1"}']]);
    expect(second.received.map((r) => r.json.id)).toEqual(['evt_2']);
    expect((await post(`http://127.0.0.1:${port}/hooks/nobody`, {})).status).toBe(404);
  });

  it("closes a receiver's path when its check ends, ending what it left hanging, and the server when the run ends", async () => {
    const port = await freePort();
    const run = fakeRun({ url: `http://127.0.0.1:${port}`, port });
    endRun = run.endRun;
    const server = (await receiverServer(run.ctx))!;
    const receiver = server.add(run.ctx, 'conftest');
    receiver.respond(() => 'hang');
    const hanging = post(receiver.url, { id: 'evt_hang' }).then(
      (r) => r.status,
      () => 'ended',
    );
    await expect.poll(() => receiver.received.length).toBe(1);
    await run.endUnit();
    expect(await hanging).toBe('ended');
    expect((await post(receiver.url, {})).status).toBe(404);
    await run.endRun();
    endRun = undefined;
    await expect(post(receiver.url, {})).rejects.toThrow();
  });
});
