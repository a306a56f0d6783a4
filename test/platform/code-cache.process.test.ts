// The built server's code cache (server/launch.ts): the first start writes it, a later start uses
// it and leaves it as it is, a cache V8 refuses is written again, and a cache of another build is
// removed. Every start serves the demo merchant's plans. In a folder of its own
// (TILL_CODE_CACHE_DIR), so that the other tests' built servers do not write the same file.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, embeddedEnv, useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';

const { tempDir, seededDataDir, startTill } = useProcesses();

let cacheDir: string;
let dataDir: string;

beforeAll(async () => {
  buildIfStale();
  cacheDir = path.join(await tempDir(), 'code-cache'); // made by the first start
  dataDir = await seededDataDir();
});

/** Starts the built server with its cache in `dir`, checks that it serves the demo merchant's plans, and stops it. */
async function startServeStop(dir = cacheDir): Promise<void> {
  const till = await startTill(embeddedEnv(dataDir, { TILL_CODE_CACHE_DIR: dir }), 'built');
  expect(till.url, till.output()).not.toBe('');
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
  expect((await call(till.url, 'GET', '/v1/plans', { key: demo.keys.test.secret })).status).toBe(200);
  till.child.kill('SIGTERM');
  expect((await till.exited).code, till.output()).toBe(0);
}

/** The caches in cacheDir, with their sizes and times. */
async function caches() {
  const names = (await readdir(cacheDir)).sort();
  return Promise.all(
    names.map(async (name) => {
      const { size, mtimeMs } = await stat(path.join(cacheDir, name));
      return { name, size, mtimeMs };
    }),
  );
}

describe('the built server’s code cache', () => {
  it('is written by a start without one, used as it is by the next, and written again when V8 refuses it, the caches of other builds removed', async () => {
    await startServeStop();
    const written = await caches(); // in the folder the start made
    expect(written).toHaveLength(1);
    expect(written[0]!.name).toMatch(new RegExp(`^bundle-\\d+-\\d+-${process.versions.v8.replace(/\./g, '\\.')}\\.v8cache$`));
    expect(written[0]!.size).toBeGreaterThan(100_000); // the compiled functions, not an empty file

    await startServeStop();
    expect(await caches()).toEqual(written); // accepted: not written again

    const file = path.join(cacheDir, written[0]!.name);
    await writeFile(file, 'not a code cache');
    await writeFile(path.join(cacheDir, `bundle-1-1-${process.versions.v8}.v8cache`), 'the cache of another build');
    await startServeStop();
    const rewritten = await caches();
    expect(rewritten.map((c) => c.name)).toEqual([written[0]!.name]); // the other build's is gone
    expect(rewritten[0]!.size).toBeGreaterThan(100_000);
  }, 120_000);

  it('is left out where its folder cannot be made: the server serves and stops as without one', async () => {
    const file = path.join(await tempDir(), 'a-file');
    await writeFile(file, '');
    await startServeStop(path.join(file, 'code-cache')); // under a file
    // Under a folder that refuses new entries: Node's recursive mkdir loops there forever.
    if (process.platform === 'linux') await startServeStop('/proc/till-code-cache');
  }, 60_000);
});
