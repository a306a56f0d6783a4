// A stop asked for as soon as the server answers, while its job queue still starts (most of a
// second on the embedded database), is a clean stop: the process exits 0 and its database is
// closed, its lock released. Before, the signal handlers came only after the job queue's start,
// and a SIGTERM in that window killed the process outright.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedEnv, freePort, useProcesses } from '../support/processes.js';

const { seededDataDir, spawnTill } = useProcesses();

describe('a stop while the job queue starts', () => {
  it('SIGTERM once /healthz answers: the server shuts down cleanly (exit 0, the database lock released)', async () => {
    const dataDir = await seededDataDir();
    const port = await freePort();
    const till = spawnTill(embeddedEnv(dataDir, { PORT: String(port) }));
    let answered = false;
    while (!answered && till.child.exitCode === null) {
      answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (res) => res.ok,
        () => false,
      );
      if (!answered) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The job queue's start was not done: the server says it listens only once it is.
    const startDone = till.output().includes('Till is listening on');
    till.child.kill('SIGTERM');
    expect({ answered, startDone }).toEqual({ answered: true, startDone: false });
    expect(await till.exited).toEqual({ code: 0, signal: null });
    expect(till.output()).toContain('SIGTERM: shutting down');
    expect(till.output()).not.toContain('Till is listening on');
    expect(existsSync(path.join(dataDir, 'pglite', 'till.lock'))).toBe(false);
  }, 60_000);
});
