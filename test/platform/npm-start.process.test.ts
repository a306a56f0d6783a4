// `npm start` itself (scripts/start.mjs): it builds dist/ when a source is newer than the build,
// then runs the built server in its own process; on a current build it starts without building.
// Then the built server's traces: its bundle holds OpenTelemetry's API, and the SDK it loads when
// tracing is configured comes from node_modules (scripts/build.mjs), so they must find each other.
// In this file, not beside the sources' traces: building here and in another file at once would
// rebuild dist/ under a running server.
import { spawn } from 'node:child_process';
import { readFile, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTraces } from '../observability/traces-scenarios.js';
import { buildIfStale, embeddedEnv, listening, root, useProcesses, watch } from '../support/processes.js';
import { call } from '../support/server.js';

const { seededDataDir } = useProcesses();

/** `npm start` in a process group of its own (npm, its shell and Node), on port 0. */
function npmStart(dataDir: string) {
  const child = spawn('npm', ['start'], { cwd: root, env: embeddedEnv(dataDir, { PORT: '0' }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const running = watch(child);
  const stop = async () => {
    if (running.child.exitCode === null && running.child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
    return running.exited;
  };
  return { running, stop };
}

/** Starts `npm start` on `dataDir`, checks that it serves the demo merchant's plans, stops it, and gives its output. */
async function startAndServe(dataDir: string): Promise<string> {
  const { running, stop } = npmStart(dataDir);
  try {
    const till = await listening(running);
    expect(till.url, running.output()).not.toBe('');
    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
    expect((await call(till.url, 'GET', '/v1/plans', { key: demo.keys.test.secret })).status).toBe(200);
  } finally {
    await stop();
  }
  return running.output();
}

describe('npm start', () => {
  it('builds dist/ when a source is newer than it, then serves from the build; on a current build it does not build', async () => {
    const stamp = path.join(root, 'dist', 'server', 'main.js');
    // The build made an hour before its sources, as after an edit (or no build at all, in a fresh checkout).
    const before = await stat(stamp).then(
      async () => {
        const hourAgo = new Date(Date.now() - 3_600_000);
        await utimes(stamp, hourAgo, hourAgo);
        return hourAgo.getTime();
      },
      () => 0,
    );
    const first = await startAndServe(await seededDataDir());
    expect(first).toContain('built dist/server');
    expect((await stat(stamp)).mtimeMs).toBeGreaterThan(before);

    const second = await startAndServe(await seededDataDir());
    expect(second).not.toContain('built dist/server');
  }, 120_000);
});

describeTraces('PGlite, the built server', async ({ seededDataDir }) => {
  buildIfStale(); // current after the test above; this one may run alone
  const dataDir = await seededDataDir();
  return { env: embeddedEnv(dataDir), dataDir, entry: 'built' };
});
